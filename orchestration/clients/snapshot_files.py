"""Reading recorded files of a snapshot folder whole, or failing with their path.

A recorded file is trusted only once it has been read to its end: a gzip stream through
its CRC and length trailer, every line as JSON. Errors name the file (and line) and say
what is wrong, in one line, so that a run fails with something the user can act on.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

_RESTORE = "restore it from the recorded snapshot"


class SnapshotFileError(ValueError):
    """A recorded file is truncated or corrupt; the message names it and what is wrong."""


def gunzipped(path: Path, content: bytes) -> bytes:
    """The decompressed bytes of `content` (the gzip file `path`), checked to the end:
    a truncated stream or a wrong CRC fails naming the file."""
    try:
        return gzip.decompress(content)
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise SnapshotFileError(f"{path}: truncated or corrupt gzip file ({error}); {_RESTORE}") from None


def iter_json_lines(path: Path, data: bytes, required: tuple[str, ...] = ()) -> Iterator[dict[str, Any]]:
    """The JSON objects of the lines of `data` (read from `path`), blank lines skipped;
    a line that is not an object, or lacks a `required` field, fails naming file and line."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise SnapshotFileError(f"{path}:{number}: not a JSON line ({error}); {_RESTORE}") from None
        if not isinstance(record, dict):
            raise SnapshotFileError(f"{path}:{number}: not a JSON object; {_RESTORE}")
        missing = [name for name in required if record.get(name) is None]
        if missing:
            raise SnapshotFileError(f"{path}:{number}: no {', '.join(missing)}; {_RESTORE}")
        yield record


def json_lines(path: Path, data: bytes, required: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """iter_json_lines as a list."""
    return list(iter_json_lines(path, data, required))


def fail_at_first_bad_line(path: Path, data: bytes, problem: str, required: tuple[str, ...] = ()) -> NoReturn:
    """Raises the error of the first line of `data` that is not a JSON object with the
    `required` fields, or else one that names `problem` (found by a columnar reader)."""
    for _record in iter_json_lines(path, data, required):
        pass
    raise SnapshotFileError(f"{path}: {problem}; {_RESTORE}")
