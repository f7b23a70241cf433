package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	decomcmd "github.com/ilmctl/ilmctl/commands/decom"
	explaincmd "github.com/ilmctl/ilmctl/commands/explain"
	filercmd "github.com/ilmctl/ilmctl/commands/filer"
	journalcmd "github.com/ilmctl/ilmctl/commands/journal"
	reconcilecmd "github.com/ilmctl/ilmctl/commands/reconcile"
	recoverycmd "github.com/ilmctl/ilmctl/commands/recovery"
	rulescmd "github.com/ilmctl/ilmctl/commands/rules"
	runcmd "github.com/ilmctl/ilmctl/commands/run"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "ilmctl",
		Short: "Keep S3 lifecycle (ILM) honest on SeaweedFS, RustFS and MinIO clusters",
		Long: `ilmctl runs S3 lifecycle passes against a filer and gives operators tools
for ILM durable records.

Start with an embedded filer built from a fixture, then run one pass:
  ilmctl filer load testdata/demo/fixture.json --filer ./ilmctl-data
  ilmctl run -runtime 60m --filer ./ilmctl-data

Exit codes: 0 ok, 1 error, 2 bad usage,
3 incomplete (a pass that saved its cursors short of the end, or a
  journal/recovery scan that could not read every pool completely),
4 pass finished but a bucket's lifecycle configuration was rejected
  (rules check: the document was rejected),
5 decom verify: the source pool may not be removed yet,
6 reconcile retained-ambiguous, 7 reconcile corrupt,
8 reconcile backend-unavailable.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if a := c.Flags().Args(); c.HasSubCommands() && len(a) > 0 {
			// A group given a word that names none of its subcommands,
			// then a flag of the subcommand meant: the word is the error.
			return cmdutil.UnknownCommand(c, a[0])
		}
		return cmdutil.SeeHelp(c.CommandPath(), "%s", flagError(err))
	})
	root.SetHelpCommand(newHelpCommand())
	cmdutil.Group(root)
	cmdutil.WrapHelp(root)
	root.AddCommand(runcmd.NewCommand(), explaincmd.NewCommand(), filercmd.NewCommand(), journalcmd.NewCommand(), decomcmd.NewCommand(), reconcilecmd.NewCommand(), recoverycmd.NewCommand(), rulescmd.NewCommand())
	strictCompletion(root)
	return root
}

// normalizeSingleDashFlags rewrites "-name" to "--name" when name is a long
// flag of the command args select, so operators can type
// "ilmctl run -runtime 60m" as they would for SeaweedFS's shell; pflag would
// otherwise read it as the shorthand cluster -r -u -n…. Shorthands
// ("-o json") and everything after "--" are left alone.
func normalizeSingleDashFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return args
	}
	long := map[string]bool{}
	collect := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
	}
	for c := cmd; c != nil; c = c.Parent() {
		collect(c.Flags())
		collect(c.PersistentFlags())
	}
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && long[name] {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

// flagError says what is wrong with a flag's value in the operator's
// terms, with an example, instead of the parser's (strconv.ParseFloat:
// parsing "abc": invalid syntax).
func flagError(err error) string {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return err.Error()
	}
	f := bad.GetFlag()
	want := map[string]string{
		"duration": "a duration such as 60m, 1h30m or 90s",
		"float64":  "a number such as 100 or 0.5",
		"int":      "a whole number such as 8",
		"bool":     "true or false",
	}[f.Value.Type()]
	if want == "" {
		return err.Error()
	}
	return fmt.Sprintf("--%s %q is not %s", f.Name, bad.GetValue(), want)
}

// newHelpCommand is 'ilmctl help [command]': cobra's, except that a topic
// that names no command is a usage error (exit 2), not the root's help
// and exit 0, as a typo'd command is.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help for any command: 'ilmctl help run' is 'ilmctl run --help'.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return cmdutil.SeeHelp("ilmctl", "no help topic %q: not an ilmctl command", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// strictCompletion makes cobra's 'ilmctl completion' with no shell, or one
// it has no script for, a usage error (exit 2) naming the shells, instead
// of its help and exit 0: a script piping it into a file would otherwise
// install the help text as a completion script.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			shells = append(shells, sh.Name())
			sh.RunE = completionScript(sh.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.Usage("completion needs a shell: %s", strings.Join(shells, ", "))
			}
			return cmdutil.Usage("no completion script for %q; the shells: %s", args[0], strings.Join(shells, ", "))
		}
	}
}

// completionScript writes shell's script to the command's output as it is
// when the command runs (cobra's own binds the output the root had when
// the completion command was made, before SetOut).
func completionScript(shell string) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, _ []string) error {
		noDesc, _ := c.Flags().GetBool("no-descriptions")
		root, out := c.Root(), c.OutOrStdout()
		switch shell {
		case "bash":
			return root.GenBashCompletionV2(out, !noDesc)
		case "zsh":
			if noDesc {
				return root.GenZshCompletionNoDesc(out)
			}
			return root.GenZshCompletion(out)
		case "fish":
			return root.GenFishCompletion(out, !noDesc)
		case "powershell":
			if noDesc {
				return root.GenPowerShellCompletion(out)
			}
			return root.GenPowerShellCompletionWithDesc(out)
		}
		return cmdutil.Usage("no completion script for %q", shell)
	}
}
