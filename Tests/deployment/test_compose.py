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


def test_image_and_compose_serve_on_all_interfaces_without_the_demo():
    # The demo container's API token would be handed to anyone who reaches the port.
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD "))
    assert '"--host", "0.0.0.0"' in cmd and '"--no-demo"' in cmd, cmd
    for name, service in compose()["services"].items():
        command = service.get("command", [])
        if command[:2] == ["cumulus", "serve"]:
            assert "--no-demo" in command, name


def test_replicas_behind_nginx_build_links_on_its_address():
    for name in ("replica-1", "replica-2"):
        hosts = compose()["services"][name]["environment"]["CUMULUS_ALLOWED_HOSTS"].split(",")
        assert "localhost:8090" in hosts, name


def test_replicas_trust_exactly_nginx_which_forwards_the_client_and_scheme():
    import ipaddress

    services = compose()["services"]
    nginx_address = ipaddress.ip_address(services["nginx"]["networks"]["default"]["ipv4_address"])
    subnet = ipaddress.ip_network(compose()["networks"]["default"]["ipam"]["config"][0]["subnet"])
    assert nginx_address in subnet
    for name in ("replica-1", "replica-2"):
        trusted = [ipaddress.ip_network(block) for block in services[name]["environment"]["CUMULUS_TRUSTED_PROXIES"].split(",")]
        assert trusted == [ipaddress.ip_network(f"{nginx_address}/32")], name
    nginx = " ".join(services["nginx"]["command"])
    assert "proxy_set_header X-Forwarded-For $$proxy_add_x_forwarded_for;" in nginx
    assert "proxy_set_header X-Forwarded-Proto $$scheme;" in nginx
    # The plain service has no proxy in front: it trusts none.
    assert "CUMULUS_TRUSTED_PROXIES" not in services["cumulus"]["environment"]


def test_compose_file_is_valid_for_docker_compose():
    binary = shutil.which("docker-compose")
    if binary is None:
        import pytest

        pytest.skip("docker-compose is not installed")
    result = subprocess.run([binary, "config", "-q"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_plain_up_starts_the_sqlite_service_alone():
    services = compose()["services"]
    assert [name for name, service in services.items() if "profiles" not in service] == ["cumulus"]


def test_postgres_profile_runs_migrate_once_then_two_replicas_behind_nginx():
    services = compose()["services"]
    profiled = {name for name, service in services.items() if "postgres" in service.get("profiles", [])}
    assert profiled == {"postgres", "migrate", "replica-1", "replica-2", "nginx"}
    assert services["migrate"]["command"][:2] == ["cumulus", "migrate"]
    assert services["migrate"]["restart"] == "no"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("replica-1", "replica-2"):
        replica = services[name]
        assert replica["environment"]["CUMULUS_DATABASE_URL"].startswith("postgres://")
        assert replica["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        # The replicas share one assets volume, so an upload through one downloads through the other.
        assert "cumulus-assets:/assets" in replica["volumes"] and replica["environment"]["CUMULUS_ASSETS"] == "/assets"
        assert "/readyz" in " ".join(replica["healthcheck"]["test"])
    nginx = " ".join(services["nginx"]["command"])
    for server in ("server replica-1:8080", "server replica-2:8080", "keepalive", "proxy_read_timeout 3600s", "proxy_buffering off",
                   'proxy_set_header Connection ""'):
        assert server in nginx


def test_dockerfile_builds_and_runs_with_libpq():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "libpq-dev" in dockerfile and "libpq5" in dockerfile
