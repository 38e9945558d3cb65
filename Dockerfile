# Builds the release binary on a Swift 6.3 image and runs it on the slim runtime image.
FROM swift:6.3-bookworm AS build
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libsqlite3-dev libpq-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --product cumulus \
    && install -D "$(swift build -c release --show-bin-path)/cumulus" /out/cumulus

FROM swift:6.3-bookworm-slim
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libsqlite3-0 libpq5 zlib1g curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /data cumulus \
    && mkdir -p /data && chown cumulus /data
COPY --from=build /out/cumulus /usr/local/bin/cumulus
COPY Public /app/Public
COPY Templates /app/Templates
WORKDIR /app
USER cumulus
ENV CUMULUS_DATA_DIR=/data CUMULUS_PUBLIC_DIR=/app/Public CUMULUS_TEMPLATES_DIR=/app/Templates
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
# No demo container: its API token would be served to anyone who reaches the port.
CMD ["cumulus", "serve", "--host", "0.0.0.0", "--port", "8080", "--data-dir", "/data", "--no-demo"]
