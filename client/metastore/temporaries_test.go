package metastore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/commands/decom"
	"github.com/ilmctl/ilmctl/commands/journal"
	core "github.com/ilmctl/ilmctl/core/metastore"
)

var errKilled = errors.New("killed before the rename")

// completeRun is testdata/decom/complete's run token.
const completeRun = "ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661"

func runCmd(t *testing.T, cmd *cobra.Command, args ...string) (string, int) {
	t.Helper()
	var o bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(&o)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	if err != nil {
		o.WriteString("ERR " + err.Error())
	}
	return o.String(), cmdutil.Code(err)
}

// TestCrashBeforeRenameLeavesNoArtifact: a dir: pool write killed between
// its temporary's fsync and its rename (an export or a disposition being
// installed) leaves nothing any reader sees: not List, not 'journal ls',
// not 'decom verify' of that pool; the next writer removes the temporary.
func TestCrashBeforeRenameLeavesNoArtifact(t *testing.T) {
	ctx := context.Background()
	for _, key := range []string{
		"ilm/recovery-exports/tier_delete_journal/41/0d/410dc74e6ec7a46b52ad0b7e54a1fbd93bbab1fa3c6fc38f6c1f6bc8cdc4e3b5.json",
		"ilm/recovery-dispositions/tier_delete_journal/5b/0c/5b0c2a91d3e4f7a8b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3.json",
	} {
		t.Run(strings.Split(key, "/")[1], func(t *testing.T) {
			work := t.TempDir()
			if err := os.CopyFS(work, os.DirFS("../../testdata/decom/complete")); err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(work, "source")
			d, err := clientmeta.NewDir(src, "dir:"+src)
			if err != nil {
				t.Fatal(err)
			}
			jls := []string{"ls", "--meta", src, "-o", "json", "--now", "2025-06-15T15:06:40Z"}
			before, _ := runCmd(t, journal.NewCommand(), jls...)
			var tmp string
			clientmeta.SetBeforeRename(d, func(tp, _ string) error { tmp = tp; return errKilled })
			if _, err := d.PutIfAbsent(ctx, key, []byte(`{"partial":"install"}`)); !errors.Is(err, errKilled) {
				t.Fatalf("write: %v", err)
			}
			if _, err := os.Stat(tmp); err != nil || !strings.Contains(tmp, clientmeta.TempDir) {
				t.Fatalf("the simulated crash left no temporary in %s: %q %v", clientmeta.TempDir, tmp, err)
			}
			for _, prefix := range []string{"", "ilm/"} {
				err := core.ListAll(ctx, d, prefix, 100, func(objs []core.Object) error {
					for _, o := range objs {
						if strings.Contains(o.Key, clientmeta.TempDir) || strings.Contains(o.Key, "recovery-") {
							t.Errorf("List(%q) sees %s", prefix, o.Key)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			out, code := runCmd(t, journal.NewCommand(), jls...)
			if code != 0 || out != before || strings.Contains(out, clientmeta.TempDir) {
				t.Fatalf("journal ls: exit %d\n%s", code, out)
			}
			out, code = runCmd(t, decom.NewCommand(), "verify", "--run-token", completeRun,
				"--meta", src, "--meta", filepath.Join(work, "target-a"), "--meta", filepath.Join(work, "target-b"))
			if code != 0 {
				t.Fatalf("decom verify is blocked by the crash: exit %d\n%s", code, out)
			}
			// The next writer (the re-run) installs and removes the litter.
			clientmeta.SetBeforeRename(d, nil)
			if _, err := d.PutIfAbsent(ctx, key, []byte(`{"installed":true}`)); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the next writer left the temporary: %v", err)
			}
		})
	}
}

// TestLegacyTemporaryBesideRecordIsRemoved: a temporary an older version
// staged beside the record (".<base><digits>") is removed by the next
// write of that record, including a create-only replay that finds it.
func TestLegacyTemporaryBesideRecordIsRemoved(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	d, err := clientmeta.NewDir(root, "dir:"+root)
	if err != nil {
		t.Fatal(err)
	}
	key := "ilm/recovery-exports/tier_delete_journal/41/0d/x.json"
	if _, err := d.PutIfAbsent(ctx, key, []byte("a")); err != nil {
		t.Fatal(err)
	}
	litter := filepath.Join(root, "ilm/recovery-exports/tier_delete_journal/41/0d/.x.json1234567")
	if err := os.WriteFile(litter, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.PutIfAbsent(ctx, key, []byte("a")); !errors.Is(err, core.ErrExists) {
		t.Fatalf("replay: %v", err)
	}
	if _, err := os.Stat(litter); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the legacy temporary survived the next write: %v", err)
	}
}
