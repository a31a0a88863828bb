// Command build-image assembles the gateway's container image from a
// compiled static binary, offline and without a container engine (package
// image), and writes it as an OCI image layout archive:
//
//	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o comments-gateway .
//	cd deploy && go run ./cmd/build-image -binary ../comments-gateway -o ../comments-gateway.oci.tar
//	skopeo copy oci-archive:comments-gateway.oci.tar docker://REGISTRY/comments-gateway:TAG   # or podman load -i
//
// SOURCE_DATE_EPOCH, when set, is the image's creation time (the same
// binary then gives the same image digest).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/acme/comments-gateway/deploy/image"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "build-image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("build-image", flag.ContinueOnError)
	var o image.Options
	fs.StringVar(&o.BinaryPath, "binary", "comments-gateway", "the static gateway binary (CGO_ENABLED=0)")
	fs.StringVar(&o.CACerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of CA certificates (Debian's ca-certificates package)")
	fs.StringVar(&o.Source, "source", "https://github.com/acme/comments-gateway", "org.opencontainers.image.source label")
	fs.StringVar(&o.Revision, "revision", "", "VCS revision for the label when the binary has none stamped (e.g. $(git rev-parse HEAD))")
	out := fs.String("o", "comments-gateway.oci.tar", "the OCI image layout archive to write")
	ref := fs.String("tag", "comments-gateway:latest", "the image's name in the archive (org.opencontainers.image.ref.name)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.Created = time.Unix(0, 0).UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v", s, err)
		}
		o.Created = time.Unix(sec, 0).UTC()
	}
	img, err := image.Build(o)
	if err != nil {
		return err
	}
	if err := image.Write(img, *ref, *out); err != nil {
		return err
	}
	d, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s %s\n", *out, *ref, d)
	return nil
}
