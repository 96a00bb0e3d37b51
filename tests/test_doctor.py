"""`egoworld doctor` against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import re
import struct
import zlib

import pytest
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


def _images_sent(srv: FakeOpenAIServer) -> int:
    return sum(p.get("type") == "image_url" for p in srv.bodies[-1]["messages"][0]["content"])


@pytest.mark.slow  # encodes 128 PNG frames at 597×336 (the acceptance command, as typed)
def test_doctor_frames_reports_the_servers_image_limit_and_the_fix():
    with FakeOpenAIServer(image_limit=32) as srv:
        result = CliRunner().invoke(app, ["doctor", "--base-url", srv.base_url, "--frames", "128"])
    assert result.exit_code == 1, result.output
    line = next(x for x in result.output.splitlines() if "run request" in x)
    assert line.startswith("FAIL")
    assert "128 frames at 597×336 (png)" in line and "HTTP 400" in line
    assert "at most 32 images per prompt" in line
    assert """--limit-mm-per-prompt '{"image": 128}'""" in line and "--frames 32" in line


def test_doctor_frames_passes_when_the_server_takes_them_all():
    with FakeOpenAIServer(image_limit=64, context_length=32768) as srv:
        report = check_server(srv.base_url, frames=48, max_pixels=160 * 90, image_format="webp:80")
    check = {c.name: c for c in report.checks}["run request"]
    assert report.ok and check.ok, check.detail
    assert "48 frames at 160×90 (webp:80)" in check.detail and "of 32768" in check.detail
    assert _images_sent(srv) == 48
    url = srv.bodies[-1]["messages"][0]["content"][0]["image_url"]["url"]
    assert url.startswith("data:image/webp;base64,")


def test_doctor_frames_explains_a_context_overflow():
    with FakeOpenAIServer(context_length=8192) as srv:  # 64 frames at 597×336 ≈ 17,000 image tokens
        report = check_server(srv.base_url, frames=64, image_format="jpeg:60")
    check = {c.name: c for c in report.checks}["run request"]
    assert not report.ok and not check.ok
    assert "does not fit the context of 8192 tokens" in check.detail
    assert "--max-model-len" in check.detail and "about 29 frames fit" in check.detail


def test_doctor_frames_explains_a_body_size_limit():
    with FakeOpenAIServer(max_body_bytes=1_000_000) as srv:
        report = check_server(srv.base_url, frames=8, max_pixels=448 * 448)
    check = {c.name: c for c in report.checks}["run request"]
    assert not check.ok and "HTTP 413" in check.detail and "Request Entity Too Large" in check.detail
    mb = re.search(r"would be ([\d.]+) MB", check.detail)
    assert "--image-format jpeg:85" in check.detail and mb and float(mb.group(1)) < 1.0
