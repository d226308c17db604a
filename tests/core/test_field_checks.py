"""The shared field checks and the one walk over a schema."""

from __future__ import annotations

import math

from gfbgcn.core.field_checks import (
    file_digests,
    finite,
    of_type,
    one_of,
    optional,
    schema_problem,
    sha256_hex,
    whole,
)

DIGEST = "0" * 64


def test_checks_name_the_problem() -> None:
    assert whole(1)(3) is None
    assert whole(1)(True) == "expected a whole number >= 1, got True"  # JSON true is no count
    assert whole(1)(0) == "expected a whole number >= 1, got 0"
    assert finite(0.0, 1.0)(0.5) is None
    assert finite(0.0, 1.0)(math.nan) == "expected a finite number, got nan"
    assert finite(0.0, 1.0)(1.5) == "expected a number in [0, 1], got 1.5"
    assert one_of("a", "b")("c") == "expected one of ['a', 'b'], got 'c'"
    assert of_type(dict, "an object")([]) == "expected an object, got list"
    assert sha256_hex(DIGEST) is None and sha256_hex("abc") == "expected a sha256 hex digest"
    digests = file_digests("w", "v")
    assert digests({"w": DIGEST, "v": DIGEST}) is None
    assert digests({"w": DIGEST}) == ("digests of ['v'] are missing (integrity checks cannot "
                                      "be skipped)")
    assert digests({"w": DIGEST, "v": "x"}) == "v: expected a sha256 hex digest"


def test_schema_walk_required_optional_and_nested_fields() -> None:
    schema = {
        "a": whole(0),
        "b": optional(finite(0.0, 1.0)),
        "c": optional(of_type(dict, "an object"), null=False),
        "c.d": whole(1),  # required inside an entry that may be absent
    }
    assert schema_problem({"a": 1}, schema) is None
    assert schema_problem({"a": 1, "b": None}, schema) is None
    assert schema_problem({}, schema) == ("a", "missing")
    assert schema_problem({"a": 1, "b": 2}, schema) == ("b", "expected a number in [0, 1], got 2")
    assert schema_problem({"a": 1, "c": None}, schema) == ("c", "expected an object, got NoneType")
    assert schema_problem({"a": 1, "c": {}}, schema) == ("c.d", "missing")
    assert schema_problem({"a": 1, "c": {"d": 0}}, schema) == (
        "c.d", "expected a whole number >= 1, got 0")
    assert schema_problem({"x": {"y": 1}}, {"x.y": whole(0), "x.z": optional(whole(0))}) is None
