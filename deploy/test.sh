#!/usr/bin/env bash
# Checks the deployment artifacts offline (scripts/test.sh runs it; it needs
# the network only for its first downloads, then works from caches):
#
#  1. builds the static binary and the container image from it
#     (deploy/cmd/build-image) into artifacts/comments-gateway.oci.tar;
#  2. builds helm once into a cached binary (HELM_BIN, default
#     $(go env GOCACHE)/comments-tools/helm-$HELM_VERSION);
#  3. synthesizes the CDK app (deploy/cdk, aws-cdk-lib pinned in its
#     package-lock.json) into deploy/cdk/cdk.out, where the e2e test of the
#     table (TestCDKTableMatchesCreateTable) reads it;
#  4. runs go vet and the deploy module's tests: the image runs from its own
#     root file system (TestImageRunsFromItsRootFS), `helm template` decodes
#     strictly into Kubernetes types (TestHelmChartRendersValidObjects).
#
# Env: HELM_VERSION (default v3.22.0), HELM_BIN.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
artifacts=$root/artifacts
mkdir -p "$artifacts"

echo "--- image: CGO_ENABLED=0 go build -trimpath, deploy/cmd/build-image"
bin=$(mktemp -d)/comments-gateway
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$bin" .
rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
(cd deploy && SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || echo 0) \
	go run ./cmd/build-image -binary "$bin" -revision "$rev" -o "$artifacts/comments-gateway.oci.tar" -tag "comments-gateway:${rev:0:12}")

helm_version=${HELM_VERSION:-v3.22.0}
if [[ -z ${HELM_BIN:-} ]]; then
	HELM_BIN=$(go env GOCACHE)/comments-tools/helm-$helm_version/helm
	if [[ ! -x $HELM_BIN ]]; then
		echo "--- building helm $helm_version once into $HELM_BIN"
		GOBIN=$(dirname "$HELM_BIN") GOFLAGS= go install "helm.sh/helm/v3/cmd/helm@$helm_version"
	fi
fi
export HELM_BIN
"$HELM_BIN" lint deploy/helm/comments-gateway

echo "--- cdk synth: deploy/cdk (npm ci, tsc, cdk synth -> cdk.out; no lookups, no AWS calls)"
(cd deploy/cdk && npm ci --no-audit --no-fund --loglevel=error && rm -rf cdk.out &&
	CDK_DISABLE_VERSION_CHECK=1 CDK_DISABLE_CLI_TELEMETRY=true npm run -s synth)

echo "--- go vet, go test (deploy module)"
cd deploy
pkgs=(. ./image/... ./cmd/...) # not ./...: deploy/cdk/node_modules holds Go templates
go vet "${pkgs[@]}"
set +e
IMAGE_ARCHIVE=$artifacts/comments-gateway.oci.tar go test -count=1 -v "${pkgs[@]}" 2>&1 | tee "$artifacts/deploy-test.log" |
	grep -E '^(--- |ok|FAIL)|_test.go'
status=${PIPESTATUS[0]}
set -e
exit "$status"
