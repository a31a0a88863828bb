//go:build linux

package deploy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"golang.org/x/sys/unix"

	"github.com/acme/comments-gateway/deploy/image"
)

// Bounds on the image test's waits.
const (
	imageBuildTimeout = 5 * time.Minute
	imageRunTimeout   = 2 * time.Minute // the whole run inside the namespaces
	imageStopTimeout  = 20 * time.Second
)

// Environment of the test's second half, run inside the namespaces.
const (
	envRootFS = "IMAGE_TEST_ROOTFS" // the unpacked root file system
	envConfig = "IMAGE_TEST_CONFIG" // the image's config (JSON v1.Config)
)

// TestImageRunsFromItsRootFS builds the image (or reads IMAGE_ARCHIVE, the
// OCI layout archive CI built with cmd/build-image), checks its
// configuration, unpacks its root file system and runs the gateway from it
// the way a container runtime would: chrooted into it, mounted read-only
// with a tmpfs on /data, as the image's user (when the test runs as root),
// in private network and mount namespaces that hold only loopback. Nothing
// of the host is visible to it. Configured by environment variables only,
// it must answer /healthz, /readyz, a mutation with an API key, a query
// that reads the comment back and /metrics on :9090, and exit 0 on SIGTERM.
func TestImageRunsFromItsRootFS(t *testing.T) {
	if os.Getenv(envRootFS) != "" {
		runInside(t)
		return
	}
	if err := exec.Command("unshare", "-r", "-n", "-m", "true").Run(); err != nil && os.Getuid() != 0 {
		t.Skipf("needs root or unprivileged user namespaces (unshare -r -n -m true: %v)", err)
	}
	img := mustImage(t)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if cf.OS != "linux" || c.User != fmt.Sprintf("%d:%d", image.UID, image.GID) || len(c.Entrypoint) != 1 || c.Entrypoint[0] != image.Binary {
		t.Fatalf("image config: os %q, user %q, entrypoint %q; want linux, %d:%d, [%s]", cf.OS, c.User, c.Entrypoint, image.UID, image.GID, image.Binary)
	}
	if _, ok := c.Volumes[image.DataDir]; !ok {
		t.Errorf("image declares volumes %v, want %s", c.Volumes, image.DataDir)
	}
	for _, l := range []string{"org.opencontainers.image.version", "org.opencontainers.image.revision", "org.opencontainers.image.created", "org.opencontainers.image.source"} {
		if c.Labels[l] == "" {
			t.Errorf("image has no label %s (labels: %v)", l, c.Labels)
		}
	}
	root := filepath.Join(t.TempDir(), "rootfs")
	if err := image.Extract(img, root, os.Getuid() == 0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bin/sh", "usr", "lib"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("the image has /%s: want nothing but the gateway, its CA bundle, passwd/group, /tmp and /data", p)
		}
	}
	conf, _ := json.Marshal(c)
	ctx, cancel := context.WithTimeout(context.Background(), imageRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestImageRunsFromItsRootFS$", "-test.v")
	cmd.Env = append(os.Environ(), envRootFS+"="+root, envConfig+"="+string(conf))
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID}
	if os.Getuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	t.Logf("inside the namespaces:\n%s", out)
	if err != nil {
		t.Fatalf("the run from the image's root file system failed: %v", err)
	}
}

// mustImage reads IMAGE_ARCHIVE, or builds the binary (CGO_ENABLED=0,
// -trimpath, as the Dockerfile does) and the image from it.
func mustImage(t *testing.T) v1.Image {
	t.Helper()
	if a := os.Getenv("IMAGE_ARCHIVE"); a != "" {
		img, err := image.Read(a, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("image from IMAGE_ARCHIVE=%s", a)
		return img
	}
	bin := filepath.Join(t.TempDir(), "comments-gateway")
	ctx, cancel := context.WithTimeout(context.Background(), imageBuildTimeout)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=true", "-ldflags=-s -w", "-o", bin, ".")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	img, err := image.Build(image.Options{BinaryPath: bin, CACerts: "/etc/ssl/certs/ca-certificates.crt", Created: time.Unix(0, 0),
		Source: "https://github.com/acme/comments-gateway", Revision: strings.TrimSpace(string(rev))})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// runInside is the test's half in the namespaces: it sets up the container
// (loopback up, the root file system read-only, a tmpfs on /data), starts
// the gateway from the image's entrypoint with the image's environment plus
// COMMENTS_* variables, and drives it.
func runInside(t *testing.T) {
	root := os.Getenv(envRootFS)
	var c v1.Config
	if err := json.Unmarshal([]byte(os.Getenv(envConfig)), &c); err != nil {
		t.Fatal(err)
	}
	mustLoopbackUp(t)
	mustContainerMounts(t, root)

	const key = "image-test-key"
	sum := sha256.Sum256([]byte(key))
	cmd := exec.Command(c.Entrypoint[0], c.Cmd...)
	cmd.Path = c.Entrypoint[0] // a path inside the chroot
	cmd.Dir = c.WorkingDir
	cmd.Env = append(append([]string{}, c.Env...),
		"COMMENTS_API_KEYS="+hex.EncodeToString(sum[:]),
		"COMMENTS_DEMO=false",
		"COMMENTS_SHUTDOWN_TIMEOUT=5s")
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root}
	if os.Getuid() == 0 && !inUserNamespace() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: image.UID, Gid: image.GID}
	}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s in the chroot: %v", c.Entrypoint[0], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
		fmt.Printf("gateway output:\n%s\n", logs.String())
	}()

	base := fmt.Sprintf("http://127.0.0.1:%d", image.Port)
	mustEventually(t, base+"/healthz", exited)
	mustEventually(t, base+"/readyz", exited)
	created := gql(t, base, key, `mutation { createComment(input: {productId: "image-test", language: "en", rating: 5, author: "ci", title: "From the image", body: "Runs from its own root file system."}) { comment { id } } }`)
	id := created["createComment"].(map[string]any)["comment"].(map[string]any)["id"].(string)
	got := gql(t, base, "", fmt.Sprintf(`{ comment(id: %q) { title product { id } } }`, id))
	if title := got["comment"].(map[string]any)["title"]; title != "From the image" {
		t.Errorf("query of the new comment: %v", got)
	}
	metrics := mustGet(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", image.MetricsPort))
	if !strings.Contains(metrics, "comments_graphql_requests_total") {
		t.Errorf("/metrics on :%d lacks comments_graphql_requests_total", image.MetricsPort)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the gateway did not exit cleanly on SIGTERM: %v", err)
		}
	case <-time.After(imageStopTimeout):
		t.Errorf("the gateway did not exit within %s of SIGTERM", imageStopTimeout)
	}
}

// inUserNamespace reports whether this process runs in a user namespace
// that maps only one id (the non-root host's run).
func inUserNamespace() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	return err == nil && !strings.Contains(string(b), "4294967295")
}

// mustLoopbackUp brings up lo, the new network namespace's only interface.
func mustLoopbackUp(t *testing.T) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		t.Fatal(err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		t.Fatalf("bring lo up: %v", err)
	}
}

// mustContainerMounts makes root a read-only bind mount of itself with a
// writable tmpfs on /data (owned by the image's user), as
// `docker run --read-only -v data:/data` would; the mounts are private to
// this mount namespace.
func mustContainerMounts(t *testing.T, root string) {
	must := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must("make mounts private", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""))
	must("bind the root file system", unix.Mount(root, root, "", unix.MS_BIND|unix.MS_REC, ""))
	must("remount it read-only", unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""))
	opts := "mode=0750"
	if os.Getuid() == 0 && !inUserNamespace() {
		opts += fmt.Sprintf(",uid=%d,gid=%d", image.UID, image.GID)
	}
	must("tmpfs on /data", unix.Mount("tmpfs", filepath.Join(root, image.DataDir), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts))
	if err := os.WriteFile(filepath.Join(root, "probe"), nil, 0o600); err == nil {
		t.Fatal("the root file system is writable after the read-only remount")
	}
}

// mustEventually polls url until it answers 200, the process exits, or
// 30 seconds pass.
func mustEventually(t *testing.T, url string, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("the gateway exited before %s answered: %v", url, err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no 200 within 30s (last: %v)", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func mustGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, b)
	}
	return string(b)
}

// gql posts query to base/graphql (with key as a bearer credential, when
// given) and returns its data, failing on any error.
func gql(t *testing.T, base, key, query string) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Errors) > 0 || r.Data == nil {
		t.Fatalf("POST /graphql %s: %s, errors %v, decode %v", query, resp.Status, r.Errors, err)
	}
	return r.Data
}
