package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// manifests are the objects of kubernetes/*.yaml.
type manifests struct {
	notes        *appsv1.Deployment
	notesSvc     *corev1.Service
	pdb          *policyv1.PodDisruptionBudget
	ingress      *networkingv1.Ingress
	redis        *appsv1.StatefulSet
	redisSvc     *corev1.Service
	unrecognized []string
}

// strictDecoder decodes a manifest as the API server does with
// fieldValidation=Strict: into the Kubernetes API's own Go types, refusing
// unknown and duplicate fields and values of the wrong type.
func strictDecoder(t *testing.T) k8sruntime.Decoder {
	t.Helper()
	scheme := k8sruntime.NewScheme()
	for _, add := range []func(*k8sruntime.Scheme) error{appsv1.AddToScheme, corev1.AddToScheme, policyv1.AddToScheme, networkingv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}

// decodeAll decodes each YAML document of b.
func decodeAll(dec k8sruntime.Decoder, b []byte) ([]k8sruntime.Object, error) {
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out []k8sruntime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := dec.Decode(doc, nil, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
}

func loadManifests(t *testing.T) *manifests {
	t.Helper()
	dec := strictDecoder(t)
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in kubernetes/: %v", err)
	}
	m := &manifests{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := decodeAll(dec, b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, o := range objs {
			switch o := o.(type) {
			case *appsv1.Deployment:
				m.notes = o
			case *appsv1.StatefulSet:
				m.redis = o
			case *policyv1.PodDisruptionBudget:
				m.pdb = o
			case *networkingv1.Ingress:
				m.ingress = o
			case *corev1.Service:
				if o.Name == "redis" {
					m.redisSvc = o
				} else {
					m.notesSvc = o
				}
			default:
				m.unrecognized = append(m.unrecognized, fmt.Sprintf("%s: %T", f, o))
			}
		}
	}
	if m.notes == nil || m.notesSvc == nil || m.pdb == nil || m.ingress == nil || m.redis == nil || m.redisSvc == nil || m.unrecognized != nil {
		t.Fatalf("want a Deployment, a PodDisruptionBudget, an Ingress, a StatefulSet and two Services; got %+v", m)
	}
	return m
}

// The manifests of kubernetes/ are what the Kubernetes API takes, decoded
// strictly with its own types (a misspelt field is refused: the test shows
// it), and they agree with each other and with the program: selectors
// select the pods, ports and probes name the container's ports, the
// grace period covers preStop and the program's drain, the state keys'
// mount holds the file --state-keys names, REDIS_URL names the Redis
// Service, and Redis keeps an append-only file and never evicts.
func TestKubernetesManifests(t *testing.T) {
	m := loadManifests(t)

	// The decoder is strict: a field the API does not have is an error.
	b, _ := os.ReadFile("kubernetes/notes.yaml")
	bad := bytes.Replace(b, []byte("          readinessProbe:"), []byte("          readinesProbe:"), 1)
	if _, err := decodeAll(strictDecoder(t), bad); err == nil || !strings.Contains(err.Error(), "readinesProbe") {
		t.Errorf("a misspelt field decoded: %v", err)
	}

	pod := m.notes.Spec.Template
	selects := func(what string, sel *metav1.LabelSelector, set map[string]string) {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Empty() || !s.Matches(labels.Set(set)) {
			t.Errorf("%s's selector %v does not select the pods %v (%v)", what, sel, set, err)
		}
	}
	selects("the Deployment", m.notes.Spec.Selector, pod.Labels)
	selects("the PodDisruptionBudget", m.pdb.Spec.Selector, pod.Labels)
	selects("the notes Service", &metav1.LabelSelector{MatchLabels: m.notesSvc.Spec.Selector}, pod.Labels)
	selects("the StatefulSet", m.redis.Spec.Selector, m.redis.Spec.Template.Labels)
	selects("the redis Service", &metav1.LabelSelector{MatchLabels: m.redisSvc.Spec.Selector}, m.redis.Spec.Template.Labels)
	if m.redis.Spec.ServiceName != m.redisSvc.Name {
		t.Errorf("the StatefulSet's serviceName %q is not the redis Service", m.redis.Spec.ServiceName)
	}
	if n := *m.notes.Spec.Replicas; m.pdb.Spec.MinAvailable.IntValue() >= int(n) {
		t.Errorf("the PodDisruptionBudget keeps %v of %d replicas: a node drain could never proceed", m.pdb.Spec.MinAvailable, n)
	}

	c := pod.Spec.Containers[0]
	hasPort := func(what string, ps []corev1.ContainerPort, name string) {
		if !slices.ContainsFunc(ps, func(q corev1.ContainerPort) bool { return q.Name == name }) {
			t.Errorf("%s names port %q, which the container does not have", what, name)
		}
	}
	for what, probe := range map[string]*corev1.Probe{"readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe} {
		if probe == nil || probe.HTTPGet == nil {
			t.Fatalf("the container has no HTTP %s", what)
		}
		hasPort(what, c.Ports, probe.HTTPGet.Port.StrVal)
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("probes %s and %s; the program serves readiness at /readyz, liveness at /healthz", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	hasPort("the notes Service", c.Ports, m.notesSvc.Spec.Ports[0].TargetPort.StrVal)
	be := m.ingress.Spec.Rules[0].HTTP.Paths[0]
	if be.Path != "/mcp" || be.Backend.Service.Name != m.notesSvc.Name || be.Backend.Service.Port.Name != m.notesSvc.Spec.Ports[0].Name {
		t.Errorf("the Ingress sends %s to %+v, not /mcp to the notes Service", be.Path, be.Backend.Service)
	}
	if m.ingress.Annotations["nginx.ingress.kubernetes.io/proxy-buffering"] != "off" {
		t.Error("the Ingress buffers responses: event streams would not go out as they are written")
	}

	// Shutdown: out of the endpoints (preStop), then the program's drain,
	// within the grace period.
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
		t.Fatal("no preStop sleep: the pod would stop taking requests while the Service still sends it some")
	}
	grace := time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	if pre := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second; pre+drainTimeout >= grace {
		t.Errorf("terminationGracePeriodSeconds %v does not cover preStop %v and the drain %v", grace, pre, drainTimeout)
	}

	// The state keys: --state-keys names a file of the Secret's mount.
	keys := flagValue(c.Args, "--state-keys")
	var mounted bool
	for _, vm := range c.VolumeMounts {
		for _, v := range pod.Spec.Volumes {
			mounted = mounted || v.Name == vm.Name && v.Secret != nil && path.Dir(keys) == vm.MountPath
		}
	}
	if keys == "" || !mounted {
		t.Errorf("--state-keys %q is not in a Secret's mount", keys)
	}

	// REDIS_URL names the redis Service and its port.
	u, err := url.Parse(envValue(c.Env, "REDIS_URL"))
	if err != nil || u.Hostname() != m.redisSvc.Name || u.Port() != fmt.Sprint(m.redisSvc.Spec.Ports[0].Port) {
		t.Errorf("REDIS_URL %v does not name the redis Service (%s:%d): %v", u, m.redisSvc.Name, m.redisSvc.Spec.Ports[0].Port, err)
	}

	// Redis: an append-only file on the volume, no eviction, and a memory
	// limit above maxmemory.
	rc := m.redis.Spec.Template.Spec.Containers[0]
	for opt, want := range map[string]string{"--appendonly": "yes", "--maxmemory-policy": "noeviction"} {
		if got := argAfter(rc.Args, opt); got != want {
			t.Errorf("redis-server %s %q, want %q", opt, got, want)
		}
	}
	if dir := argAfter(rc.Args, "--dir"); !slices.ContainsFunc(rc.VolumeMounts, func(vm corev1.VolumeMount) bool { return vm.MountPath == dir }) {
		t.Errorf("redis-server writes to %q, which is not its volume", dir)
	}
	maxmem, err := resource.ParseQuantity(strings.TrimSuffix(argAfter(rc.Args, "--maxmemory"), "gb") + "Gi")
	if lim := rc.Resources.Limits[corev1.ResourceMemory]; err != nil || lim.Cmp(maxmem) <= 0 {
		t.Errorf("redis memory limit %v not above maxmemory %v (%v)", lim.String(), maxmem.String(), err)
	}
}

// The Deployment's container, run as a process with its own arguments and
// environment (but for the listener, a free loopback port, and the paths
// and Redis address Kubernetes would give it), on a redis-server started
// with the StatefulSet's arguments: its probes answer 200 at the paths the
// manifest names, it serves MCP under the pod's name, it stops on SIGTERM,
// and it has exported its metrics to the collector the manifest names (a
// test's endpoint in its place).
func TestKubernetesReplicaRuns(t *testing.T) {
	m := loadManifests(t)

	// Redis with the StatefulSet's arguments, less its data directory.
	var rargs []string
	ra := m.redis.Spec.Template.Spec.Containers[0].Args
	for i := 1; i < len(ra); i += 2 {
		if ra[i] != "--dir" {
			rargs = append(rargs, ra[i], ra[i+1])
		}
	}
	rs := redistest.StartWith(t, redistest.Config{AppendOnly: true, Args: rargs})
	out, err := exec.Command("redis-cli", "-p", fmt.Sprint(rs.Port), "config", "get", "maxmemory-policy").Output()
	if err != nil || !strings.Contains(string(out), "noeviction") {
		t.Fatalf("redis-server with the StatefulSet's arguments: maxmemory-policy %q, %v", out, err)
	}

	c := m.notes.Spec.Template.Spec.Containers[0]
	dir := t.TempDir()
	key := make([]byte, 32)
	rand.Read(key)
	keyFile := filepath.Join(dir, path.Base(flagValue(c.Args, "--state-keys")))
	if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const podName = "notes-7d9f8-abcde"
	var args []string
	for _, a := range c.Args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--http": // startReplica listens on a free loopback port
			continue
		case "--state-keys":
			a = "--state-keys=" + keyFile
		}
		args = append(args, strings.ReplaceAll(a, "$(POD_NAME)", podName))
	}
	col := &collector{spans: map[string][]string{}, metrics: map[string][]string{}}
	ts := httptest.NewServer(col)
	defer ts.Close()
	var env []string
	for _, e := range c.Env {
		switch {
		case e.Name == "REDIS_URL":
			env = append(env, "REDIS_URL="+rs.URL())
		case e.Name == "OTEL_EXPORTER_OTLP_ENDPOINT":
			env = append(env, e.Name+"="+ts.URL)
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			env = append(env, e.Name+"="+podName)
		default:
			env = append(env, e.Name+"="+e.Value)
		}
	}
	r := startReplicaEnv(t, env, args...)
	if want := fmt.Sprint(c.Ports[0].ContainerPort); flagValue(c.Args, "--http") != ":"+want {
		t.Errorf("the container listens at %q, not its port %s", flagValue(c.Args, "--http"), want)
	}
	for _, p := range []string{c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path} {
		if st := status(t, r.Base, p); st != http.StatusOK {
			t.Errorf("GET %s: %d, want 200", p, st)
		}
	}
	ctx := context.Background()
	client, err := mcphttpclient.Connect(ctx, r.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	n, err := NewNotesMCPClient(client).AddNote(ctx, "from the manifest")
	if err != nil || n.Replica != podName {
		t.Fatalf("AddNote = %+v, %v; want it stored by replica %s", n, err, podName)
	}
	r.waitLog(t, "state keys", "keys=")
	client.Close()
	r.stop(t)
	col.mu.Lock()
	defer col.mu.Unlock()
	if !slices.Contains(col.metrics["notes/"+podName], "mcp.server.operation.duration") {
		t.Errorf("the replica exported no mcp.server.operation.duration to OTEL_EXPORTER_OTLP_ENDPOINT: %v", col.metrics)
	}
}

// flagValue is the value of --name=value in args.
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// argAfter is the argument after opt in args.
func argAfter(args []string, opt string) string {
	if i := slices.Index(args, opt); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

func envValue(env []corev1.EnvVar, name string) string {
	for _, e := range env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}
