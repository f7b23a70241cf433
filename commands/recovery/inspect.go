package recovery

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/metastore"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/internal/atomicfile"
	"github.com/ilmctl/ilmctl/render"
)

// nonce returns 32 random bytes in hex; tests replace it.
var nonce = func() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b[:])
}

// writePrivate writes an operator-side file: mode 0600, atomic, and an
// existing file only with --force.
func writePrivate(flag, path string, data []byte, force bool) error {
	err := atomicfile.WritePrivate(path, data, force)
	if errors.Is(err, atomicfile.ErrExists) {
		return cmdutil.Usage("%s %s exists: choose another file or pass --force to replace it", flag, path)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}

func notFoundHint(err error) error {
	if errors.Is(err, metastore.ErrNotFound) {
		return fmt.Errorf("%v: list controls with 'ilmctl recovery ls' (run 'recovery scan' first)", err)
	}
	return err
}

func oneControlArg(verb string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return cmdutil.Usage("recovery %s needs exactly one CONTROL-ID (as 'ilmctl recovery ls' prints it)", verb)
		}
		return nil
	}
}

func newInspect() *cobra.Command {
	var c common
	var receiptOut string
	var force bool
	cmd := &cobra.Command{
		Use:   "inspect CONTROL-ID",
		Short: "Read a stuck record in every pool, redacted; issue a receipt",
		Long: `inspect strictly decodes the control's source record at its canonical path,
strongly reads every copy in every --meta pool and prints, redacted (digests,
ETags, version, never bucket, object, tier or remote-version names): the
copy set and content digests, the record version and quarantine reason, the
control's classification and age, decommission coverage and whether the
record is ready for export/abandon. It changes nothing.

With --receipt-out it writes a 15-minute observation receipt (mode 0600)
bound to you (the actor), the control generation, every copy's ETag and
digest, the pool set and an action class. 'recovery export' and
'recovery abandon' need it and refuse it once anything it binds changed.

CONTROL-ID is as 'recovery ls' prints it, or any unambiguous prefix of at
least 8 digits.`,
		Example: `  ilmctl recovery inspect 160f3effd967 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1
  ilmctl recovery inspect 160f3effd967 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1 --receipt-out receipt.json -o json`,
		Args: oneControlArg("inspect"),
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&receiptOut, "receipt-out", "", "write the observation receipt to this file (mode 0600; never replaces a file without --force)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing --receipt-out file")
	output := cmdutil.AddOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, e, err := c.begin(cmd, output)
		if err != nil {
			return err
		}
		in, err := core.Inspect(ctxOf(cmd), e.pools, args[0], core.InspectOptions{Clock: now, Actor: e.actor, Nonce: nonce()})
		if err != nil {
			e.audit(auditLine{Action: "inspect", Outcome: outcomeOf(err)})
			_ = c.finish(e)
			return notFoundHint(err)
		}
		if receiptOut != "" {
			if in.Receipt == nil {
				return fmt.Errorf("no receipt: the source record could not be read in every pool (%s)", strings.Join(in.NotReady, "; "))
			}
			if err := writePrivate("--receipt-out", receiptOut, in.Receipt.Encode(), force); err != nil {
				return err
			}
		}
		e.audit(auditLine{Action: "inspect", Protocol: string(in.Control.Protocol), ControlID: in.Control.ID,
			SourceGeneration: sourceGeneration(in.Control), ControlGeneration: strconv.FormatUint(in.Control.Revision, 10), Outcome: "ok"})
		if err := renderInspect(e.out, format, in, receiptOut, now(), cmdutil.Width(e.out)); err != nil {
			return err
		}
		return c.finish(e)
	}
	return cmd
}

// renderInspect prints one control and its record in full, values
// wrapped to width (render.Fields).
func renderInspect(w io.Writer, f render.Format, in *core.Inspection, receiptOut string, at time.Time, width int) error {
	ctl := in.Control
	age := int64(at.Sub(time.Unix(0, ctl.FirstSeenAtUnixNanos)) / time.Second)
	if f == render.FormatJSON {
		out := map[string]any{
			"control": rowOf(ctl, in.ControlETag, at), "inspection": in, "age_seconds": age,
		}
		if in.Receipt != nil {
			out["receipt"] = map[string]any{"file": receiptOut, "expires_at": in.Receipt.ExpiresAt, "receipt_sha256": in.Receipt.ReceiptSHA256}
		}
		return render.JSON(w, out)
	}
	rows := [][]string{
		{"control", ctl.ID}, {"protocol", string(ctl.Protocol)}, {"source", ctl.SourcePath},
		{"classification", string(ctl.Classification)}, {"record_classification", dash(string(in.JournalClassification))},
		{"quarantine_reason", dash(in.QuarantineReason)}, {"schema", dash(in.SourceSchema)}, {"state", dash(in.SourceState)},
		{"age", render.Duration(time.Duration(age)*time.Second) + " (since first seen " + time.Unix(0, ctl.FirstSeenAtUnixNanos).UTC().Format(time.RFC3339) + ")"},
		{"attempts", fmt.Sprintf("%d (consecutive failures %d)", ctl.AttemptCount, ctl.ConsecutiveFailureCount)},
		{"content_sha256", dash(in.ContentSHA256)}, {"copy_set_sha256", dash(in.CopySetSHA256)},
	}
	for _, cp := range in.Copies {
		rows = append(rows, []string{"copy", fmt.Sprintf("%s etag=%s sha256=%s size=%d", cp.Pool, cp.ETag, cp.SHA256[:16], cp.Size)})
	}
	for _, u := range in.Unreadable {
		rows = append(rows, []string{"unreadable", u})
	}
	dec := "none"
	if in.Decommission.Covered() {
		dec = strings.Join(append(append([]string{}, in.Decommission.Active...), in.Decommission.Unknown...), "; ")
	}
	rows = append(rows, []string{"decommission", dec}, []string{"action_class", string(in.ActionClass)})
	ready := "yes"
	if !in.Ready {
		ready = "no: " + strings.Join(in.NotReady, "; ")
	}
	rows = append(rows, []string{"ready", ready})
	if in.ActionClass == core.ClassLegacyDisposition {
		// What 'recovery abandon' would say now (the same decision).
		abandon := "yes"
		if in.AbandonRefusal != "" {
			abandon = "no: " + in.AbandonRefusal
		}
		rows = append(rows, []string{"abandon", abandon})
	}
	if in.Receipt != nil && receiptOut != "" {
		rows = append(rows, []string{"receipt", receiptOut + " (expires " + in.Receipt.ExpiresAt.Format(time.RFC3339) + ")"})
	}
	return render.Fields(w, "Record", [2]string{"FIELD", "VALUE"}, rows, width)
}
