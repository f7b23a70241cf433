// Package deploy holds no code: its test checks that the example
// manifests under deploy/ decode strictly as what they claim to be, and
// that every ilmctl flag they pass exists on `ilmctl run`.
package deploy

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	runcmd "github.com/ilmctl/ilmctl/commands/run"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// documents splits a YAML file into its documents.
func documents(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")) != "" {
			out = append(out, []byte(doc))
		}
	}
	return out
}

// decodeStrict decodes a document into the k8s.io/api type of its kind,
// refusing fields that type does not have (a misspelt or misplaced key).
func decodeStrict(t *testing.T, path string, doc []byte) any {
	t.Helper()
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 CronJob":
		obj = &batchv1.CronJob{}
	case "v1 Secret":
		obj = &corev1.Secret{}
	default:
		t.Fatalf("%s: a document of %s %s: add its type to this test", path, tm.APIVersion, tm.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		t.Fatalf("%s: %s: %v", path, tm.Kind, err)
	}
	return obj
}

// checkRunFlags parses args (after "run") with `ilmctl run`'s own flag set:
// every flag must exist there and take the value given. Values the
// environment fills in ($(VAR), ${VAR}) are strings to the parser.
func checkRunFlags(t *testing.T, where string, args []string) *runFlags {
	t.Helper()
	cmd := runcmd.NewCommand()
	fs := cmd.Flags()
	var norm []string
	for _, a := range args {
		// ilmctl takes -runtime for --runtime (cmd/ilmctl's
		// normalizeSingleDashFlags); pflag alone would not.
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			if name, _, _ := strings.Cut(a[1:], "="); len(name) > 1 {
				if fs.Lookup(name) == nil {
					t.Errorf("%s: ilmctl run has no flag -%s", where, name)
					continue
				}
				a = "-" + a
			}
		}
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a[2:], "=")
			if fs.Lookup(name) == nil {
				t.Errorf("%s: ilmctl run has no flag --%s", where, name)
			}
		}
		norm = append(norm, a)
	}
	if err := fs.Parse(norm); err != nil {
		t.Errorf("%s: ilmctl run %s: %v", where, strings.Join(args, " "), err)
	}
	if rest := fs.Args(); len(rest) > 0 {
		t.Errorf("%s: arguments %q are not flags: ilmctl run takes none", where, rest)
	}
	get := func(name string) string {
		if f := fs.Lookup(name); f != nil && f.Changed {
			return f.Value.String()
		}
		return ""
	}
	return &runFlags{shards: get("shards"), hosts: get("hosts"), shardIndex: get("shard-index"), workers: get("workers")}
}

type runFlags struct{ shards, hosts, shardIndex, workers string }

func TestKubernetesManifests(t *testing.T) {
	paths, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests under kubernetes/: %v", err)
	}
	var cronJobs int
	for _, path := range paths {
		for _, doc := range documents(t, path) {
			cj, ok := decodeStrict(t, path, doc).(*batchv1.CronJob)
			if !ok {
				continue
			}
			cronJobs++
			checkCronJob(t, path, cj)
		}
	}
	if cronJobs == 0 {
		t.Error("no CronJob under kubernetes/")
	}
}

func checkCronJob(t *testing.T, path string, cj *batchv1.CronJob) {
	if cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
		t.Errorf("%s: concurrencyPolicy %q: a pass must not start beside the last", path, cj.Spec.ConcurrencyPolicy)
	}
	job := cj.Spec.JobTemplate.Spec
	if job.CompletionMode == nil || *job.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("%s: the Job is not Indexed: no pod would have $JOB_COMPLETION_INDEX", path)
	}
	if job.Completions == nil || job.Parallelism == nil || *job.Completions != *job.Parallelism {
		t.Errorf("%s: completions and parallelism must both be N, the hosts sharing the shards", path)
	}
	pod := job.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers, want ilmctl alone", path, len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "run" {
		t.Fatalf("%s: args %q do not start with run", path, c.Args)
	}
	rf := checkRunFlags(t, path, c.Args[1:])
	if rf.shards != "auto" {
		t.Errorf("%s: --shards %q, want auto (each pod's index from $JOB_COMPLETION_INDEX)", path, rf.shards)
	}
	if rf.workers != "" {
		t.Errorf("%s: --workers beside --shards auto is refused", path)
	}
	if n, err := strconv.Atoi(rf.hosts); err != nil || job.Completions == nil || int32(n) != *job.Completions {
		t.Errorf("%s: --hosts %q is not completions (%v): the rate would be split by the wrong N", path, rf.hosts, job.Completions)
	}

	// Non-root, read-only root, $TMPDIR on an emptyDir.
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: the pod does not insist on a non-root user", path)
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("%s: the root filesystem is not read-only", path)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	tmp := env["TMPDIR"].Value
	var tmpVolume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == tmp {
			tmpVolume = m.Name
		}
	}
	var tmpIsEmptyDir bool
	for _, v := range pod.Volumes {
		if v.Name == tmpVolume && v.EmptyDir != nil {
			tmpIsEmptyDir = true
		}
	}
	if tmp == "" || !tmpIsEmptyDir {
		t.Errorf("%s: $TMPDIR %q is not an emptyDir mount: the pass's spill files need a writable place", path, tmp)
	}
	var fromSecret bool
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			fromSecret = true
		}
		if strings.Contains(strings.ToLower(e.Name), "key") && e.Value != "" {
			t.Errorf("%s: %s is given in the manifest, not from a Secret", path, e.Name)
		}
	}
	if !fromSecret {
		t.Errorf("%s: no credential comes from a Secret", path)
	}
}

// TestSystemdUnit checks ilmctl-run.service's ExecStart against `ilmctl
// run`'s flags, and that its timer names a calendar.
func TestSystemdUnit(t *testing.T) {
	keys := unitKeys(t, "systemd/ilmctl-run.service")
	exec := keys["ExecStart"]
	if len(exec) != 1 {
		t.Fatalf("ilmctl-run.service: %d ExecStart lines, want 1", len(exec))
	}
	words := strings.Fields(exec[0])
	if len(words) < 2 || filepath.Base(words[0]) != "ilmctl" || words[1] != "run" {
		t.Fatalf("ExecStart %q is not ilmctl run", exec[0])
	}
	rf := checkRunFlags(t, "ilmctl-run.service", words[2:])
	if rf.shardIndex == "" && rf.shards != "auto" {
		t.Error("ilmctl-run.service: neither --shard-index nor --shards auto: every host would try every shard")
	}
	if got := keys["Type"]; len(got) != 1 || got[0] != "oneshot" {
		t.Errorf("ilmctl-run.service: Type %q, want oneshot: a pass runs and exits", got)
	}
	if got := unitKeys(t, "systemd/ilmctl-run.timer")["OnCalendar"]; len(got) == 0 {
		t.Error("ilmctl-run.timer: no OnCalendar")
	}
}

// unitKeys reads a systemd unit's key=value lines (comments and section
// headers dropped), values in order per key.
func unitKeys(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("%s: %q is not key=value", path, line)
			continue
		}
		out[strings.TrimSpace(k)] = append(out[strings.TrimSpace(k)], strings.TrimSpace(v))
	}
	return out
}
