package recovery

import (
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/render"
)

// readReceipt loads and strictly decodes a --receipt file.
func readReceipt(path string) (*core.Receipt, error) {
	if path == "" {
		return nil, cmdutil.Usage("--receipt is required: write one with 'ilmctl recovery inspect CONTROL-ID --receipt-out FILE'")
	}
	b, err := readBounded(path, core.MaxReceiptSize)
	if err != nil {
		return nil, cmdutil.Usage("--receipt %s: %v; run 'recovery inspect' again", path, err)
	}
	r, err := core.DecodeReceipt(b)
	if err != nil {
		return nil, cmdutil.Usage("--receipt %s: %v; run 'recovery inspect' again", path, err)
	}
	return r, nil
}

// readBounded reads at most limit bytes of path: a larger file is
// core.ErrReceiptTooLarge without being read into memory.
func readBounded(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, core.ErrReceiptTooLarge
	}
	return b, nil
}

func newExport() *cobra.Command {
	var c common
	var receipt, out string
	var force bool
	cmd := &cobra.Command{
		Use:   "export CONTROL-ID --receipt FILE [--out FILE]",
		Short: "Install an immutable export of a stuck record and download it",
		Long: `export repeats every live proof of 'recovery inspect' (every copy in every
pool at the receipt's ETags and digests, the same control generation, the
same actor, the receipt unexpired, no decommission coverage), then installs
an immutable rustfs-ilm-recovery-export-v1 envelope holding the record's raw
bytes and its sorted copy manifest, create-only, under
ilm/recovery-exports/ in the control pool, and reads it back.

With --out the downloaded envelope (as read back, not the live record) is
written to FILE with mode 0600; an existing FILE is replaced only with
--force. Exporting the same generation again finds the same export ID and
reuses it. An export never contains credentials or backend configuration,
but it does hold the record's bucket, object and tier names: keep it
private.

The export ID and its SHA-256 printed here are what 'recovery abandon'
takes.`,
		Example: `  ilmctl recovery inspect 160f3effd967 --meta dir:/srv/meta0 \
      --receipt-out receipt.json
  ilmctl recovery export 160f3effd967 --meta dir:/srv/meta0 \
      --receipt receipt.json --out export.json
  ilmctl recovery export get 5b0c2a91d3e4f7a8 --meta dir:/srv/meta0 \
      --out export.json`,
		Args: oneControlArg("export"),
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&receipt, "receipt", "", "observation receipt from 'recovery inspect --receipt-out' (required)")
	cmd.Flags().StringVar(&out, "out", "", "write the export envelope to this file (mode 0600)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing --out file")
	output := cmdutil.AddOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var r *core.Receipt
		e, err := c.begin(cmd, output, func() (err error) {
			if r, err = readReceipt(receipt); err != nil {
				return err
			}
			if out != "" && !force {
				if _, err := os.Lstat(out); err == nil {
					return cmdutil.Usage("--out %s exists: choose another file or pass --force to replace it", out)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		res, err := core.CreateExport(ctxOf(cmd), e.pools, args[0], r, core.ExportOptions{Clock: now, Actor: e.actor, Nonce: nonce()})
		line := auditLine{Action: "export", Protocol: string(r.Protocol), ControlID: r.ControlID,
			ControlGeneration: strconv.FormatUint(r.ControlRevision, 10), Outcome: outcomeOf(err)}
		if res != nil {
			line.SourceGeneration = sourceGeneration(res.Control)
			if res.Export != nil {
				line.ExportID = res.Export.ExportID
			}
		}
		e.audit(line)
		if err != nil {
			return c.fail(e, err)
		}
		if out != "" {
			if err := writePrivate("--out", out, res.Bytes, force); err != nil {
				return err
			}
		}
		if err := render.RecoveryExport(e.out, e.format, res, out, e.width); err != nil {
			return err
		}
		return c.finish(e)
	}
	cmd.AddCommand(newExportGet())
	return cmd
}

func newExportGet() *cobra.Command {
	var c common
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "get EXPORT-ID --out FILE",
		Short: "Download an existing export",
		Long: `get strongly reads an existing export from the control pool, checks it
strictly (schema, checksum, ID, content and copy-set digests) and writes it
to --out with mode 0600 (use --out - for standard output). It changes
nothing.`,
		Example: `  ilmctl recovery export get 5b0c2a91d3e4f7a8 --meta dir:/srv/meta0 \
      --out export.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Usage("recovery export get needs exactly one EXPORT-ID (as 'recovery export' printed it)")
			}
			return nil
		},
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&out, "out", "", "write the export envelope to this file (mode 0600), or - for standard output (required)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing --out file")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		e, err := c.begin(cmd, nil, func() error {
			if out == "" {
				return cmdutil.Usage("--out is required: a file (written with mode 0600) or - for standard output")
			}
			return nil
		})
		if err != nil {
			return err
		}
		res, err := core.GetExport(ctxOf(cmd), e.pools[0], args[0])
		line := auditLine{Action: "export_get", Outcome: outcomeOf(err)}
		if res != nil {
			line.Protocol, line.ControlID, line.ExportID = string(res.Export.Protocol), res.Export.ControlID, res.Export.ExportID
		}
		e.audit(line)
		if err != nil {
			return c.fail(e, err)
		}
		if out == "-" {
			_, err = e.out.Write(res.Bytes)
		} else if err = writePrivate("--out", out, res.Bytes, force); err == nil {
			err = render.RecoveryExportWritten(e.out, res, out)
		}
		if err != nil {
			return err
		}
		return c.finish(e)
	}
	return cmd
}

// exitFor maps an incomplete discovery to exit 3; everything else is 1.
func exitFor(err error) error {
	if isIncomplete(err) {
		return cmdutil.Incomplete(err)
	}
	return err
}
