# Soperator's controller image with soperator-metrics added, built for the
# image's exact Slurm (docs/soperator.md). From the root of a checkout of
# this repository:
#
#   docker build -f docs/examples/soperator-controller.Dockerfile \
#     -t registry.example.com/soperator/controller_slurmctld:5.0.0-slurm26.05.3-nebius-2-soperator-metrics-0.1.0 .
#
# BASE_IMAGE is the controller image the cluster runs now (the slurmctld
# image of its SlurmCluster). SLURM_SOURCE_URL must be the source that
# image's slurm-smd packages were built from: Nebius publishes each
# -nebius-N release at github.com/nebius/slurm/releases. Give its SHA-256
# in SLURM_SOURCE_SHA256 to have it checked.
ARG BASE_IMAGE=cr.eu-north1.nebius.cloud/soperator/controller_slurmctld:5.0.0-slurm26.05.3-nebius-2

# Build on the image itself: the same distribution, compiler runtime and
# libraries the plugin will load next to.
FROM ${BASE_IMAGE} AS build
ARG SLURM_SOURCE_URL=https://github.com/nebius/slurm/releases/download/slurm-26-05-3-nebius-2/slurm-26.05.3-nebius-2.tar.gz
ARG SLURM_SOURCE_SHA256=
RUN apt-get update && apt-get install -y --no-install-recommends \
        build-essential ca-certificates curl devscripts dpkg-dev equivs \
        meson ninja-build pkg-config libssl-dev libyaml-cpp-dev libcrypt-dev zlib1g-dev
# The vendor's tree, configured the way its debian/rules configures the
# packages' build (the same options give the same config.h), with its own
# build dependencies.
RUN mkdir -p /usr/src/slurm && cd /usr/src/slurm && \
    curl -fsSL -o /tmp/slurm.tar "$SLURM_SOURCE_URL" && \
    if [ -n "$SLURM_SOURCE_SHA256" ]; then echo "$SLURM_SOURCE_SHA256  /tmp/slurm.tar" | sha256sum -c -; fi && \
    tar -xf /tmp/slurm.tar --strip-components=1 && rm /tmp/slurm.tar && \
    mk-build-deps -i -r -t 'apt-get -y --no-install-recommends' debian/control && \
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH) && \
    flags=$(sed -n 's/^\tdh_auto_configure -- //p' debian/rules | sed "s/\$(DEB_HOST_MULTIARCH)/$multiarch/g") && \
    eval ./configure --prefix=/usr --libdir=/usr/lib/$multiarch $flags
COPY . /usr/src/soperator-metrics
RUN /usr/src/soperator-metrics/packaging/deb/build-deb.sh \
        --slurm-src /usr/src/slurm --outdir /usr/src/deb

FROM ${BASE_IMAGE}
COPY --from=build /usr/src/deb/soperator-metrics_*.deb /tmp/soperator-metrics/
COPY docs/examples/soperator-install-plugin.sh /tmp/soperator-metrics/
RUN /tmp/soperator-metrics/soperator-install-plugin.sh && \
    rm -rf /tmp/soperator-metrics /var/lib/apt/lists/*
