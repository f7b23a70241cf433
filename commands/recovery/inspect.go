package recovery

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
		e, err := c.begin(cmd, output, nil)
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
		if err := render.RecoveryInspect(e.out, e.format, in, receiptOut, now(), e.width); err != nil {
			return err
		}
		return c.finish(e)
	}
	return cmd
}
