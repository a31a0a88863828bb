// Package deploy holds what it takes to run the gateway as a fleet — the
// container image's builder (package image, command build-image), the
// Dockerfile, the Helm chart, the CDK app, the IAM policies, the systemd
// unit and the dashboards (docs/deploy.md) — and the tests that check them
// offline: the image runs from its own root file system, the chart renders
// into valid Kubernetes objects. It is a module of its own so that these
// tools' dependencies stay out of the gateway's.
package deploy
