package recovery

import (
	"crypto/rand"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/render"
)

// ownerEpoch returns a fresh random UUID (version 4); tests replace it.
var ownerEpoch = func() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func newRetry() *cobra.Command {
	var c common
	var confirm bool
	cmd := &cobra.Command{
		Use:   "retry CONTROL-ID --confirm",
		Short: "Ask for one more bounded recovery attempt after a fix",
		Long: `retry is for after you changed what made a record stuck (a capability, the
configuration, a pool that was unreachable). It gives the control a new
owner lease (you, a fresh epoch, 15 minutes), makes it retrying and due
now, so the next 'recovery scan' makes one attempt. The lifetime attempt
count, the consecutive failures and the first-failure time are kept: an
attempt that fails again goes straight back to operator_required rather
than starting a new 32-failure budget.

Without --confirm it prints what would change and writes nothing. Refused
for abandoned and terminal controls, while another lease is live, and while
an operator disposition of the record is in flight.`,
		Example: `  # dry run, then execute
  ilmctl recovery retry 1544a72d14a0 --meta dir:/srv/meta0 --meta dir:/srv/meta1
  ilmctl recovery retry 1544a72d14a0 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1 --confirm
  ilmctl recovery scan --meta dir:/srv/meta0 --meta dir:/srv/meta1`,
		Args: oneControlArg("retry"),
	}
	c.flags(cmd)
	cmd.Flags().BoolVar(&confirm, "confirm", false, "write the new lease (default: dry run)")
	output := cmdutil.AddOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		e, err := c.begin(cmd, output, nil)
		if err != nil {
			return err
		}
		res, err := core.RequestRetry(ctxOf(cmd), e.pools[0], core.RetryRequest{
			ControlID: args[0], Actor: e.actor, OwnerEpoch: ownerEpoch(), Clock: now, Execute: confirm,
		})
		line := auditLine{Action: "retry", Outcome: outcomeOf(err)}
		if res != nil {
			line.Protocol, line.ControlID = string(res.Before.Protocol), res.Before.ID
			line.SourceGeneration = sourceGeneration(res.Before)
			line.ControlGeneration = strconv.FormatUint(res.After.Revision, 10)
		}
		if confirm || err != nil {
			e.audit(line)
		}
		if err != nil {
			_ = c.finish(e)
			return notFoundHint(err)
		}
		if err := render.RecoveryRetry(e.out, e.format, res, !confirm, e.width); err != nil {
			return err
		}
		return c.finish(e)
	}
	return cmd
}
