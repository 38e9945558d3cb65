"""The container setup: docker-compose.yml and the Dockerfile it builds.

No Docker engine runs where the tests run, so the files are parsed and checked here, and
`docker-compose config -q` (which validates without an engine) runs when it is installed.
"""
import pathlib
import shutil
import subprocess

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]


def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_service_builds_the_image_and_serves_on_all_interfaces():
    service = compose()["services"]["cumulus"]
    assert service["build"] == "."
    command = service["command"]
    assert command[:2] == ["cumulus", "serve"]
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert command[command.index("--port") + 1] == "8080"
    assert command[command.index("--data-dir") + 1] == "/data"


def test_port_8080_is_published():
    ports = [str(port) for port in compose()["services"]["cumulus"]["ports"]]
    assert any(port.endswith("8080:8080") for port in ports)


def test_data_directory_lives_on_a_named_volume():
    document = compose()
    mounts = document["services"]["cumulus"]["volumes"]
    named = [mount.split(":") for mount in mounts if not mount.startswith((".", "/"))]
    assert ["cumulus-data", "/data"] in [pair[:2] for pair in named]
    assert "cumulus-data" in document["volumes"]


def test_healthcheck_asks_healthz():
    check = compose()["services"]["cumulus"]["healthcheck"]
    assert "http://127.0.0.1:8080/healthz" in " ".join(check["test"])
    assert check["interval"] and check["retries"] >= 1


def test_dockerfile_builds_release_on_swift_6_3_and_ships_the_assets():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "FROM swift:6.3" in dockerfile
    assert "swift build -c release --product cumulus" in dockerfile
    assert "libsqlite3-dev" in dockerfile and "zlib1g-dev" in dockerfile
    assert "COPY Public" in dockerfile and "COPY Templates" in dockerfile
    assert "HEALTHCHECK" in dockerfile and "/healthz" in dockerfile
    assert 'CMD ["cumulus", "serve", "--host", "0.0.0.0"' in dockerfile


def test_compose_file_is_valid_for_docker_compose():
    binary = shutil.which("docker-compose")
    if binary is None:
        import pytest

        pytest.skip("docker-compose is not installed")
    result = subprocess.run([binary, "config", "-q"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
