// Package image assembles the gateway's container image from a compiled
// static binary, without a container engine: one layer on top of nothing
// (scratch) holding the binary, a CA bundle, /etc/passwd and /etc/group
// naming the non-root user, and the /data volume, with an OCI image
// configuration that sets the user, the listen address and the labels.
// Write stores it as an OCI image layout archive (what `podman load`,
// `skopeo copy oci-archive:` and `docker load` read); Extract unpacks an
// image's root file system, which the tests run the gateway from.
package image

import (
	"archive/tar"
	"bytes"
	"debug/buildinfo"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed layout: where things are and who runs them.
const (
	// Binary is the gateway's path in the image (the entrypoint).
	Binary = "/comments-gateway"
	// DataDir is the volume for the bbolt file (COMMENTS_STORE's default).
	DataDir = "/data"
	// CACerts is the CA bundle, where Go's crypto/x509 looks first on Linux.
	CACerts = "/etc/ssl/certs/ca-certificates.crt"
	// UID and GID are the non-root user the gateway runs as (distroless's
	// "nonroot").
	UID, GID = 65532, 65532
	// Port is the API's port inside the image; MetricsPort serves /metrics.
	Port, MetricsPort = 8080, 9090
)

// Env is the image's environment: the gateway listens on every address of
// the container (its default, 127.0.0.1, would be unreachable from
// outside), serves /metrics on its own port, and keeps a bbolt store in the
// volume unless COMMENTS_STORE names a DynamoDB table.
var Env = []string{
	fmt.Sprintf("COMMENTS_ADDR=:%d", Port),
	fmt.Sprintf("COMMENTS_METRICS_ADDR=:%d", MetricsPort),
	"COMMENTS_STORE=bolt:" + DataDir + "/comments.db",
	"SSL_CERT_FILE=" + CACerts,
}

// Options is what Build needs besides the binary.
type Options struct {
	BinaryPath string    // a static linux binary (CGO_ENABLED=0)
	CACerts    string    // a PEM bundle, e.g. Debian's /etc/ssl/certs/ca-certificates.crt
	Arch       string    // GOARCH of the binary; "" reads it from the binary
	Created    time.Time // the image's and its files' time (reproducible builds: SOURCE_DATE_EPOCH)
	Source     string    // org.opencontainers.image.source
	// Revision is the VCS revision for the label when the binary has none
	// (go build stamps it only in a git clone: not in a worktree, nor with
	// -buildvcs=false).
	Revision string
}

// Build returns the image: the binary's build information (module version
// and VCS revision, stamped by the Go toolchain) goes into the OCI labels.
func Build(o Options) (v1.Image, error) {
	info, err := buildinfo.ReadFile(o.BinaryPath)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Go binary with build information: %w", o.BinaryPath, err)
	}
	arch := o.Arch
	for _, s := range info.Settings {
		switch {
		case s.Key == "CGO_ENABLED" && s.Value != "0":
			return nil, fmt.Errorf("%s was built with CGO_ENABLED=%s: the image has no C library; build it with CGO_ENABLED=0", o.BinaryPath, s.Value)
		case s.Key == "GOARCH" && arch == "":
			arch = s.Value
		}
	}
	if arch == "" {
		arch = runtime.GOARCH
	}
	bin, err := os.ReadFile(o.BinaryPath)
	if err != nil {
		return nil, err
	}
	certs, err := os.ReadFile(o.CACerts)
	if err != nil {
		return nil, fmt.Errorf("CA certificates: %w", err)
	}
	layerTar, err := rootLayer(bin, certs, o.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.Created}, CreatedBy: "deploy/cmd/build-image", Comment: "comments-gateway, CA certificates, nonroot user, /data",
	}}); err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, v1.Time{Time: o.Created}
	cf.Config = v1.Config{
		User:         fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint:   []string{Binary},
		Cmd:          []string{"serve"},
		Env:          Env,
		WorkingDir:   DataDir,
		ExposedPorts: map[string]struct{}{fmt.Sprintf("%d/tcp", Port): {}, fmt.Sprintf("%d/tcp", MetricsPort): {}},
		Volumes:      map[string]struct{}{DataDir: {}},
		StopSignal:   "SIGTERM",
		Labels:       Labels(info, o),
	}
	return mutate.ConfigFile(img, cf)
}

// Labels are the OCI annotations of the image
// (github.com/opencontainers/image-spec annotations.md).
func Labels(info *buildinfo.BuildInfo, o Options) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "comments-gateway",
		"org.opencontainers.image.description": "GraphQL gateway for product comments (bbolt or DynamoDB)",
		"org.opencontainers.image.version":     info.Main.Version,
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.base.name":   "scratch",
	}
	if o.Source != "" {
		l["org.opencontainers.image.source"] = o.Source
	}
	if o.Revision != "" {
		l["org.opencontainers.image.revision"] = o.Revision
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			l["org.opencontainers.image.revision"] = s.Value
		}
	}
	return l
}

// rootLayer is the image's only layer: every file with a fixed owner,
// mode and time, so the same inputs give the same digest.
func rootLayer(bin, certs []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(body)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, GID, DataDir)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", GID)
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file(strings.TrimPrefix(CACerts, "/"), 0o644, certs) },
		func() error { return dir("tmp", 0o1777, 0) },
		func() error { return dir(strings.TrimPrefix(DataDir, "/"), 0o750, UID) },
		func() error { return file(strings.TrimPrefix(Binary, "/"), 0o755, bin) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write stores img as an OCI image layout archive at out (a tar of the
// layout directory), tagged ref (org.opencontainers.image.ref.name).
func Write(img v1.Image, ref, out string) error {
	dir, err := os.MkdirTemp("", "oci-layout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = tw.AddFS(os.DirFS(dir))
	if cerr := tw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Read returns the first image of the OCI layout archive at archive,
// unpacked into dir.
func Read(archive, dir string) (v1.Image, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := untar(f, dir, false); err != nil {
		return nil, fmt.Errorf("%s: %w", archive, err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(m.Manifests) == 0 {
		return nil, fmt.Errorf("%s holds no image", archive)
	}
	return idx.Image(m.Manifests[0].Digest)
}

// Extract unpacks img's root file system (its layers, flattened) into dir.
// With owners (as root), files get the owners the layers give them.
func Extract(img v1.Image, dir string, owners bool) error {
	rc := mutate.Extract(img)
	defer rc.Close()
	return untar(rc, dir, owners)
}

// untar writes the regular files and directories of a tar stream under dir,
// refusing names that leave it.
func untar(r io.Reader, dir string, owners bool) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if !fs.ValidPath(name) {
			return fmt.Errorf("tar entry %q leaves the directory", h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		mode := fs.FileMode(h.Mode).Perm()
		if h.Mode&0o1000 != 0 {
			mode |= fs.ModeSticky
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("tar entry %q: type %c not supported", h.Name, h.Typeflag)
		}
		if err := os.Chmod(target, mode); err != nil {
			return err
		}
		if owners {
			if err := os.Lchown(target, h.Uid, h.Gid); err != nil {
				return err
			}
		}
	}
}
