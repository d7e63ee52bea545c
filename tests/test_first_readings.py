"""The first reading of a labelled sample is written once and never overwritten."""

from bench.first_readings import first_readings, record_first_reading


def test_a_sample_keeps_its_first_reading(tmp_path):
    path = tmp_path / "first_readings.csv"

    said = record_first_reading("screening", "batch_a", 40, {"f1": 0.8, "accuracy": 0.75}, path=path)
    assert "recorded" in said
    record_first_reading("screening", "batch_a", 40, {"f1": 0.95, "accuracy": 0.99}, path=path)
    record_first_reading("screening", "batch_b", 10, {"f1": 0.5}, path=path)

    rows = first_readings(path)
    assert [(row["sample"], row["metric"], row["value"]) for row in rows] == [
        ("batch_a", "f1", "0.8000"),
        ("batch_a", "accuracy", "0.7500"),
        ("batch_b", "f1", "0.5000"),
    ]
    again = record_first_reading("screening", "batch_a", 40, {"f1": 1.0}, path=path)
    assert "f1 0.800" in again and "accuracy 0.750" in again
