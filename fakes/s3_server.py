"""An S3-compatible object store on the loopback, for the DuckLake whose Parquet files are
in a bucket (TRACKER_DATA_PATH=s3://…, AWS_ENDPOINT_URL=…).

It is moto's server: the S3 REST protocol as DuckDB's httpfs speaks it to AWS, MinIO or
R2 (SigV4-signed requests, path-style URLs, ranged GETs, multipart uploads,
ListObjectsV2), kept in memory for the length of a `with` block. Buckets live as long as
the process: give each test its own."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from fakes.serving import FAKE_HOST, free_port

_S3_NAMESPACE = {"s3": "http://s3.amazonaws.com/doc/2006-03-01/"}
#: Credentials the fake accepts (it checks none); a client must still sign with some.
ACCESS_KEY_ID = "tracker-test-key"
SECRET_ACCESS_KEY = "tracker-test-secret"
REGION = "us-east-1"


class S3Unavailable(RuntimeError):
    """moto's server cannot run here (not installed)."""


@dataclass(frozen=True)
class S3Server:
    """A running store at `endpoint` (http://127.0.0.1:port)."""

    endpoint: str

    def environment(self) -> dict[str, str]:
        """The variables a client of this store reads (the AWS credential chain and endpoint)."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY_ID,
            "AWS_SECRET_ACCESS_KEY": SECRET_ACCESS_KEY,
            "AWS_REGION": REGION,
        }

    def create_bucket(self, name: str) -> str:
        """A new empty bucket `name`; returns its URL (s3://name/)."""
        httpx.put(f"{self.endpoint}/{name}").raise_for_status()
        return f"s3://{name}/"

    def keys(self, bucket: str) -> list[str]:
        """Every object key in `bucket`, following ListObjectsV2's continuation tokens."""
        keys: list[str] = []
        params = {"list-type": "2"}
        while True:
            response = httpx.get(f"{self.endpoint}/{bucket}", params=params)
            response.raise_for_status()
            listing = ElementTree.fromstring(response.content)
            keys += [key.text or "" for key in listing.iterfind("s3:Contents/s3:Key", _S3_NAMESPACE)]
            token = listing.findtext("s3:NextContinuationToken", None, _S3_NAMESPACE)
            if not token:
                return keys
            params = {"list-type": "2", "continuation-token": token}


@contextmanager
def running_s3() -> Iterator[S3Server]:
    """moto's S3 server in a thread for the block, then stopped."""
    try:
        from moto.server import ThreadedMotoServer
    except ImportError as error:
        raise S3Unavailable(f"moto's server is not installed ({error}); pip install -e '.[dev]'") from None
    port = free_port()
    server = ThreadedMotoServer(ip_address=FAKE_HOST, port=port, verbose=False)
    server.start()
    try:
        yield S3Server(f"http://{FAKE_HOST}:{port}")
    finally:
        server.stop()
