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


def test_a_sample_a_model_was_trained_on_gets_no_first_reading_but_keeps_an_earlier_one(tmp_path):
    path = tmp_path / "first_readings.csv"

    said = record_first_reading("aliases", "batch_c", 30, {"recall": 0.99}, path=path, trained_on_by="name model")
    assert said == "no first reading of batch_c recorded: the name model was trained on it"
    assert first_readings(path) == []

    record_first_reading("aliases", "batch_d", 30, {"recall": 0.7}, path=path)
    kept = record_first_reading("aliases", "batch_d", 30, {"recall": 0.99}, path=path, trained_on_by="name model")
    assert "recall 0.700" in kept
