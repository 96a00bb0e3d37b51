"""`egoworld doctor` against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import struct
import zlib

from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.models.doctor import check_server, tiny_png
from openai_test_server import FakeOpenAIServer


def test_tiny_png_is_a_valid_png():
    data = tiny_png(32)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (32, 32)
    idat_len = struct.unpack(">I", data[33:37])[0]
    raw = zlib.decompress(data[41 : 41 + idat_len])
    assert len(raw) == 32 * (1 + 32 * 3)


def test_doctor_reports_a_vision_server_with_context():
    with FakeOpenAIServer(context_length=32768) as srv:
        report = check_server(srv.base_url)
    assert report.ok and report.model == "fake-vlm-1" and report.context_length == 32768
    assert report.accepts_images is True
    assert {c.name: c.ok for c in report.checks} == {
        "reachable": True,
        "model listed": True,
        "context length": True,
        "text request": True,
        "images": True,
    }


def test_doctor_flags_a_text_only_server_and_a_wrong_model():
    with FakeOpenAIServer(refuse_images=True) as srv:
        report = check_server(srv.base_url, "other-model")
        result = CliRunner().invoke(app, ["doctor", "--base-url", srv.base_url])
    assert not report.ok
    assert report.accepts_images is False
    checks = {c.name: c for c in report.checks}
    assert checks["model listed"].ok is False and "other-model" in checks["model listed"].detail
    assert "HTTP 400" in checks["images"].detail
    assert result.exit_code == 0 and "refused" in result.output  # images are optional: still usable text-only


def test_doctor_on_a_dead_port_fails_clearly():
    report = check_server("http://127.0.0.1:9/v1", "x", timeout=2)
    assert not report.ok and "failed" in report.checks[0].detail
    result = CliRunner().invoke(app, ["doctor", "--base-url", "http://127.0.0.1:9/v1", "--timeout", "2"])
    assert result.exit_code == 1 and "FAIL" in result.output
