package kubernetes

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// decodeStrict reads a YAML manifest into a Kubernetes API type, failing
// on any field the type does not have (a misspelt field).
func decodeStrict(data []byte, into any) error {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	// Kubernetes' own JSON decoding: field names match case-sensitively
	// (encoding/json would take "completionmode" for completionMode), and
	// an unknown or repeated field is an error.
	strict, err := kjson.UnmarshalStrict(js, into, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

func readJob(t *testing.T) (*batchv1.Job, []byte) {
	t.Helper()
	data, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := decodeStrict(data, &job); err != nil {
		t.Fatalf("job.yaml: %v", err)
	}
	return &job, data
}

func TestJobIsAnIndexedJobOfTheGroup(t *testing.T) {
	job, _ := readJob(t)
	s := job.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" {
		t.Errorf("kind %s %s", job.APIVersion, job.Kind)
	}
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
		t.Fatalf("completions %v, parallelism %v: want them equal", s.Completions, s.Parallelism)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if got, want := env["MONGOBENCH_CLIENTS"].Value, fmt.Sprint(*s.Completions); got != want {
		t.Errorf("MONGOBENCH_CLIENTS %q, want the completions, %s", got, want)
	}
	for _, name := range []string{"MONGOBENCH_URI", "MONGOBENCH_RESULTS_URI"} {
		e := env[name]
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s: want it from a Secret (secretKeyRef), got %+v", name, e)
		}
	}
	if g := env["MONGOBENCH_GROUP"]; g.ValueFrom == nil || g.ValueFrom.FieldRef == nil {
		t.Errorf("MONGOBENCH_GROUP: want the Job's name from the downward API, got %+v", g)
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--uri") || strings.HasPrefix(a, "--results") || strings.Contains(a, "mongodb") {
			t.Errorf("argument %q: connection strings come from the Secret, never the argument list", a)
		}
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %s, want Never (a client cannot rejoin a started group)", s.Template.Spec.RestartPolicy)
	}
}

// A misspelt field fails the strict decoding, so the test above can fail.
func TestMisspeltFieldIsRefused(t *testing.T) {
	_, data := readJob(t)
	bad := bytes.Replace(data, []byte("completionMode:"), []byte("completionmode:"), 1)
	var job batchv1.Job
	if err := decodeStrict(bad, &job); err == nil || !strings.Contains(err.Error(), "completionmode") {
		t.Errorf("a misspelt field: got %v, want it refused by name", err)
	}
}

func TestScenarioConfigMap(t *testing.T) {
	data, err := os.ReadFile("scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := decodeStrict(data, &cm); err != nil {
		t.Fatalf("scenario.yaml: %v", err)
	}
	job, _ := readJob(t)
	var mounted bool
	for _, v := range job.Spec.Template.Spec.Volumes {
		mounted = mounted || v.ConfigMap != nil && v.ConfigMap.Name == cm.Name
	}
	if !mounted {
		t.Errorf("the Job does not mount the ConfigMap %s", cm.Name)
	}
	text, ok := cm.Data["scenario.yaml"]
	if !ok {
		t.Fatal("the ConfigMap has no scenario.yaml")
	}
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, _, err := spec.ParseFile(path, builtin.Registry())
	if err != nil {
		t.Fatalf("the ConfigMap's scenario: %v", err)
	}
	if err := sc.Validate(builtin.Registry()); err != nil {
		t.Fatalf("the ConfigMap's scenario: %v", err)
	}
	if n := *job.Spec.Completions; sc.Threads < int(n) {
		t.Errorf("threads %d: want at least one per client (%d)", sc.Threads, n)
	}
}

// No connection string is written into the manifests or the image recipe.
func TestNoConnectionStrings(t *testing.T) {
	for _, f := range []string{"job.yaml", "scenario.yaml", "../../Dockerfile"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("mongodb://")) || bytes.Contains(data, []byte("mongodb+srv://")) {
			t.Errorf("%s holds a connection string", f)
		}
	}
}

// The image's binary is static: built as the Dockerfile builds it
// (CGO_ENABLED=0), it has no program interpreter and no dynamic section.
func TestStaticBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; -short skips it")
	}
	recipe, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(recipe, []byte("CGO_ENABLED=0")) {
		t.Fatal("the Dockerfile does not build with CGO_ENABLED=0")
	}
	bin := filepath.Join(t.TempDir(), "mongobench")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", bin, "github.com/mongobench/mongobench/cmd/mongobench")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: it is dynamically linked", p.Type)
		}
	}
	if s := f.Section(".dynamic"); s != nil {
		t.Error("the binary has a .dynamic section")
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary imports %v", libs)
	}
}
