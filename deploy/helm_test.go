package deploy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// helmVersion is the helm deploy/test.sh builds (go install
// helm.sh/helm/v3/cmd/helm@helmVersion) into helmCacheDir.
const helmVersion = "v3.22.0"

// mustHelm returns the helm binary: HELM_BIN, or the one deploy/test.sh
// cached; without either the test skips, naming the command.
func mustHelm(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM_BIN"); h != "" {
		return h
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err == nil {
		h := filepath.Join(strings.TrimSpace(string(out)), "comments-tools", "helm-"+helmVersion, "helm")
		if _, err := os.Stat(h); err == nil {
			return h
		}
	}
	t.Skipf("no helm: run deploy/test.sh (it builds helm %s once into the Go build cache) or set HELM_BIN", helmVersion)
	return ""
}

// rendered is the chart's output, each object decoded strictly into its
// Kubernetes API type.
type rendered struct {
	deployment *appsv1.Deployment
	service    *corev1.Service
	account    *corev1.ServiceAccount
	config     *corev1.ConfigMap
	secret     *corev1.Secret
	pdb        *policyv1.PodDisruptionBudget
	hpa        *autoscalingv2.HorizontalPodAutoscaler
}

// mustRender runs `helm template` on the chart with args and decodes each
// object strictly: a field the API type lacks (a misspelling, a field at
// the wrong level) fails, as a kind the test does not know does.
func mustRender(t *testing.T, args ...string) rendered {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mustHelm(t), append([]string{"template", "gw", "helm/comments-gateway", "--namespace", "shop"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr.String())
	}
	var r rendered
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(out), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("rendered document: %v\n%s", err, doc)
		}
		decode, ok := map[string]func([]byte) error{
			"apps/v1 Deployment":                     func(b []byte) error { return decodeStrict(&r.deployment, b) },
			"v1 Service":                             func(b []byte) error { return decodeStrict(&r.service, b) },
			"v1 ServiceAccount":                      func(b []byte) error { return decodeStrict(&r.account, b) },
			"v1 ConfigMap":                           func(b []byte) error { return decodeStrict(&r.config, b) },
			"v1 Secret":                              func(b []byte) error { return decodeStrict(&r.secret, b) },
			"policy/v1 PodDisruptionBudget":          func(b []byte) error { return decodeStrict(&r.pdb, b) },
			"autoscaling/v2 HorizontalPodAutoscaler": func(b []byte) error { return decodeStrict(&r.hpa, b) },
		}[tm.APIVersion+" "+tm.Kind]
		if !ok {
			t.Fatalf("rendered an object of unknown kind %s %s", tm.APIVersion, tm.Kind)
		}
		if err := decode([]byte(doc)); err != nil {
			t.Fatalf("%s does not decode strictly into its Kubernetes type: %v\n%s", tm.Kind, err, doc)
		}
	}
	return r
}

// decodeStrict decodes a YAML object into a new *T at dst as the API
// server's strict field validation does: a duplicate key, or a field T
// lacks — also one that differs only in case, which encoding/json would
// accept — is an error.
func decodeStrict[T any](dst **T, doc []byte) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	*dst = new(T)
	strict, err := k8sjson.UnmarshalStrict(j, *dst)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// TestHelmChartRendersValidObjects renders the chart as an EKS user would
// (an IRSA role, API key hashes) and checks each object against the
// Kubernetes API types and the rules of docs/deploy.md: probes on /healthz
// and /readyz, resources, non-root with a read-only root file system,
// config from the ConfigMap and the Secret, a grace period longer than the
// preStop sleep plus -shutdown-timeout, a PDB and an HPA on the pods, and a
// ServiceAccount annotated for IRSA.
func TestHelmChartRendersValidObjects(t *testing.T) {
	const role = "arn:aws:iam::123456789012:role/comments-gateway"
	r := mustRender(t, "--set", `serviceAccount.annotations.eks\.amazonaws\.com/role-arn=`+role,
		"--set", "secret.values.COMMENTS_API_KEYS=0123abcd")
	for name, missing := range map[string]bool{"Deployment": r.deployment == nil, "Service": r.service == nil, "ServiceAccount": r.account == nil,
		"ConfigMap": r.config == nil, "Secret": r.secret == nil, "PodDisruptionBudget": r.pdb == nil, "HorizontalPodAutoscaler": r.hpa == nil} {
		if missing {
			t.Fatalf("the chart rendered no %s", name)
		}
	}
	pod := r.deployment.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("pod has %d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	probe := func(name string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port.String() != "http" {
			t.Errorf("%s probe: %+v, want GET %s on port http", name, p, path)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want CPU and memory requests and a memory limit", c.Resources)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container securityContext %+v: want a read-only root file system and no privilege escalation", sc)
	}
	if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and a non-zero runAsUser", psc)
	}
	var fromConfig, fromSecret bool
	for _, e := range c.EnvFrom {
		fromConfig = fromConfig || e.ConfigMapRef != nil && e.ConfigMapRef.Name == r.config.Name
		fromSecret = fromSecret || e.SecretRef != nil && e.SecretRef.Name == r.secret.Name
	}
	if !fromConfig || !fromSecret {
		t.Errorf("envFrom %+v: want the ConfigMap %s and the Secret %s", c.EnvFrom, r.config.Name, r.secret.Name)
	}
	if r.secret.StringData["COMMENTS_API_KEYS"] != "0123abcd" {
		t.Errorf("Secret holds %v, want COMMENTS_API_KEYS", r.secret.StringData)
	}
	shutdown, err := time.ParseDuration(r.config.Data["COMMENTS_SHUTDOWN_TIMEOUT"])
	if err != nil {
		t.Fatalf("ConfigMap COMMENTS_SHUTDOWN_TIMEOUT: %v", err)
	}
	var preStop time.Duration
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
		preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	if g := pod.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= preStop+shutdown {
		t.Errorf("terminationGracePeriodSeconds %v: want more than the preStop sleep (%s) plus -shutdown-timeout (%s)", g, preStop, shutdown)
	}
	if pod.ServiceAccountName != r.account.Name || r.account.Annotations["eks.amazonaws.com/role-arn"] != role {
		t.Errorf("ServiceAccount %s %v used by %q: want the pod to use it and the IRSA annotation", r.account.Name, r.account.Annotations, pod.ServiceAccountName)
	}
	podLabels := r.deployment.Spec.Template.Labels
	for what, sel := range map[string]*metav1.LabelSelector{"Deployment": r.deployment.Spec.Selector, "PodDisruptionBudget": r.pdb.Spec.Selector} {
		for k, v := range sel.MatchLabels {
			if podLabels[k] != v {
				t.Errorf("%s selects %s=%s, which the pods (%v) lack", what, k, v, podLabels)
			}
		}
	}
	for k, v := range r.service.Spec.Selector {
		if podLabels[k] != v {
			t.Errorf("Service selects %s=%s, which the pods lack", k, v)
		}
	}
	if ref := r.hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != r.deployment.Name {
		t.Errorf("HPA scales %s %s, want Deployment %s", ref.Kind, ref.Name, r.deployment.Name)
	}
	if r.deployment.Spec.Replicas != nil {
		t.Errorf("with the HPA on, the Deployment sets replicas (%d): every upgrade would reset the HPA's count", *r.deployment.Spec.Replicas)
	}
	if u := r.deployment.Spec.Strategy.RollingUpdate; u == nil || u.MaxUnavailable == nil || u.MaxUnavailable.IntValue() != 0 {
		t.Errorf("rolling update %+v: want maxUnavailable 0 (a new pod is ready before an old one drains)", u)
	}
}
