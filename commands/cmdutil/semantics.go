package cmdutil

import (
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// PassNow is the instant a pass (or a preview of one) evaluates at: the
// current UTC time, or --now when given. A malformed or out-of-range
// --now is a usage error naming the flag.
func PassNow(flagNow string) (time.Time, error) {
	if flagNow == "" {
		return time.Now().UTC(), nil
	}
	now, err := time.Parse(time.RFC3339, flagNow)
	if err != nil {
		return time.Time{}, hint.With(Usage("--now %q is not RFC3339", flagNow), "for example --now 2027-01-01T00:00:00Z")
	}
	if filer.CheckTime("--now", now) != nil {
		return time.Time{}, hint.With(Usage("--now %s is out of range", flagNow),
			"use a time from "+filer.MinTime.Format(time.RFC3339)+" to "+filer.MaxTime.Format(time.RFC3339))
	}
	return now, nil
}

// Semantics parses --due-rounding, --expired-marker-days and
// --newer-noncurrent-count, the flags by which `run` and `explain` may
// depart from AWS's lifecycle semantics, into the engine's options; a bad
// value is a usage error naming the flag.
func Semantics(dueRounding, expiredMarkers, newerNoncurrent string) (engine.Options, error) {
	var opts engine.Options
	var err error
	if opts.Rounding, err = lifecycle.ParseRounding(dueRounding); err != nil {
		return opts, Usage("--due-rounding: %v", err)
	}
	if opts.ExpiredMarkers, err = lifecycle.ParseExpiredMarkerDays(expiredMarkers); err != nil {
		return opts, Usage("--expired-marker-days: %v", err)
	}
	if opts.NewerNoncurrent, err = lifecycle.ParseNewerNoncurrentCount(newerNoncurrent); err != nil {
		return opts, Usage("--newer-noncurrent-count: %v", err)
	}
	return opts, nil
}

// NewerNoncurrentFlagHelp is --newer-noncurrent-count's help line, shared
// by run and explain.
const NewerNoncurrentFlagHelp = "what counts toward NewerNoncurrentVersions: versions (object versions only, as S3) or versions-and-markers (as SeaweedFS and MinIO)"

// PassFlags are the flags `run` and `explain` both read before any store
// is opened: the pass clock, the three semantics flags and the --rules
// candidates. Each command declares them with its own help.
type PassFlags struct {
	Now             string
	DueRounding     string
	ExpiredMarkers  string
	NewerNoncurrent string
	Rules           []string
}

// PassInputs are PassFlags read.
type PassInputs struct {
	Now        time.Time      // PassNow
	Semantics  engine.Options // Semantics
	Candidates Candidates     // ReadCandidates; nil without --rules
}

// Read reads the flags in the order their errors are reported: --now, the
// semantics flags, then the --rules files, the one step that reads a
// file.
func (p PassFlags) Read() (PassInputs, error) {
	var in PassInputs
	var err error
	if in.Now, err = PassNow(p.Now); err != nil {
		return in, err
	}
	if in.Semantics, err = Semantics(p.DueRounding, p.ExpiredMarkers, p.NewerNoncurrent); err != nil {
		return in, err
	}
	in.Candidates, err = ReadCandidates(p.Rules)
	return in, err
}
