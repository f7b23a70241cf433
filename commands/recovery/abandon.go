package recovery

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/envelope"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/render"
)

func newAbandon() *cobra.Command {
	var c common
	var exportID, exportSHA, receipt, reason string
	var confirm, ack bool
	cmd := &cobra.Command{
		Use:   "abandon CONTROL-ID --export-id ID --export-sha256 HEX --receipt FILE --reason legacy_remote_cleanup_abandoned",
		Short: "Remove an exported v1/v2 tier-delete journal (dry run by default)",
		Long: `abandon removes the local copies of one tier-delete journal v1 or v2, which
RustFS can never clean up by itself (v1 has no backend identity, v2 no
remote-version authority), after it was exported with 'recovery export'.
It accepts that the remote object the journal was meant to delete may leak:
it never sends any request to a tier backend and never claims that remote
cleanup happened.

Without --confirm and --acknowledge-remote-cleanup-abandoned it is a dry
run: every check runs and the plan is printed, nothing is written. Giving
only one of the two flags is an error.

When executed it installs a Prepared disposition receipt bound to the
export and the immutable sorted copy manifest (in the control pool), proves
every bound copy is still at its exact ETag and digest, moves to Applying,
then per copy: deletes it only at its exact ETag, proves it absent by a
strong read, and records it in the receipt's confirmed_absent set. It ends
Completed after a final all-pool absence proof, and marks the control
abandoned. If it is interrupted (crash, lost response), run the same
command again: it continues from the receipt (use a fresh receipt from
'recovery inspect' if the old one expired).

It is refused for v3-v6 journals, malformed records, while an active
decommission receipt covers the record, when any pool cannot be read, and
when any copy differs from the export (a replacement is kept, never
deleted). The observation receipt must be yours, unexpired, and taken of
the current control generation.

Deletes must be conditional. Before its first write, and again before
each copy's delete, it asks every s3:// pool it deletes from whether the
server honours If-Match on DELETE: a probe object under the pool's
.ilmctl-tmp/ is deleted with a wrong ETag (it must survive) and then the
right one. A server that deleted it (MinIO does) refuses the run, exit 1,
naming the pool, and nothing is deleted there (asked before the first
write, nothing is written either). Keep such a pool on a server that
honours If-Match (AWS S3, SeaweedFS). dir: pools need no probe.

The table fits the terminal (or $COLUMNS, else 80 columns): ETags and the
IDs in a result by their first 12 digits, results wrapped; -o wide prints
them whole.`,
		Example: `  # 1. observe, 2. export, 3. dry run, 4. execute
  ilmctl recovery inspect 160f3effd967 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1 --receipt-out receipt.json
  ilmctl recovery export 160f3effd967 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1 --receipt receipt.json --out export.json
  ilmctl recovery abandon 160f3effd967 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1 --receipt receipt.json \
      --export-id 410dc74e6ec7a46b... --export-sha256 382e7cf6625eeb81... \
      --reason legacy_remote_cleanup_abandoned
  ilmctl recovery abandon 160f3effd967 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1 --receipt receipt.json \
      --export-id 410dc74e6ec7a46b... --export-sha256 382e7cf6625eeb81... \
      --reason legacy_remote_cleanup_abandoned \
      --confirm --acknowledge-remote-cleanup-abandoned`,
		Args: oneControlArg("abandon"),
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&exportID, "export-id", "", "export ID printed by 'recovery export' (required)")
	cmd.Flags().StringVar(&exportSHA, "export-sha256", "", "SHA-256 of the export envelope printed by 'recovery export' (required)")
	cmd.Flags().StringVar(&receipt, "receipt", "", "observation receipt from 'recovery inspect --receipt-out' (required)")
	cmd.Flags().StringVar(&reason, "reason", "", "operator reason code (required): "+string(core.ReasonLegacyRemoteCleanupAbandoned))
	cmd.Flags().BoolVar(&confirm, "confirm", false, "execute instead of a dry run (needs the acknowledge flag above too)")
	cmd.Flags().BoolVar(&ack, "acknowledge-remote-cleanup-abandoned", false, "acknowledge that the remote object may leak and is never cleaned up by this (needs --confirm too)")
	output := cmdutil.AddOutputFlag(cmd, render.FormatTable, render.FormatWide, render.FormatJSON)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var r *core.Receipt
		e, err := c.begin(cmd, output, func() (err error) {
			switch {
			case len(exportID) != 64 || !envelope.IsSHA256Hex(strings.ToLower(exportID)):
				return cmdutil.Usage("--export-id %q: give the full 64-digit export ID 'recovery export' printed", exportID)
			case !envelope.IsSHA256Hex(strings.ToLower(exportSHA)):
				return cmdutil.Usage("--export-sha256 %q: give the 64-digit export_sha256 'recovery export' printed", exportSHA)
			case reason != string(core.ReasonLegacyRemoteCleanupAbandoned):
				return cmdutil.Usage("--reason %q: the only accepted reason is %s", reason, core.ReasonLegacyRemoteCleanupAbandoned)
			case confirm != ack:
				return cmdutil.Usage("executing abandon needs both --confirm and --acknowledge-remote-cleanup-abandoned; give neither for a dry run")
			}
			r, err = readReceipt(receipt)
			return err
		})
		if err != nil {
			return err
		}
		execute := confirm && ack
		res, err := core.Abandon(ctxOf(cmd), e.pools, core.AbandonRequest{
			ControlID: args[0], ExportID: strings.ToLower(exportID), ExportSHA256: strings.ToLower(exportSHA),
			Reason: core.ReasonCode(reason), Receipt: r, Actor: e.actor, Clock: now, Execute: execute, OwnerEpoch: ownerEpoch(),
		})
		action := "abandon"
		if !execute {
			action = "abandon_dry_run"
		}
		line := auditLine{Action: action, Protocol: string(r.Protocol), ControlID: r.ControlID,
			ControlGeneration: strconv.FormatUint(r.ControlRevision, 10), ExportID: strings.ToLower(exportID), ReasonCode: reason, Outcome: outcomeOf(err)}
		if res != nil {
			line.SourceGeneration, line.TookOverFrom = sourceGeneration(res.Control), res.TookOverFrom
			if res.Disposition != nil {
				line.DispositionID = res.Disposition.DispositionID
				if execute {
					line.OwnerEpoch = res.Disposition.OwnerEpoch
				}
			}
		}
		e.audit(line)
		if res != nil && len(res.Steps) > 0 {
			if rerr := render.RecoveryAbandon(e.out, e.format, res, err, e.width); rerr != nil {
				return rerr
			}
		}
		if err != nil {
			return c.fail(e, err)
		}
		return c.finish(e)
	}
	return cmd
}
