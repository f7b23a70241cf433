// Command write stores testdata/rustfsgen's records in a directory that
// `ilmctl journal ls --meta DIR` reads, with expect.json beside them
// (path → classification, decision, what), so the differential set can be
// inspected by hand:
//
//	go run ./testdata/rustfsgen/write -out /tmp/rustfs-pool
//	ilmctl journal ls --meta /tmp/rustfs-pool --now 2026-09-01T12:00:00Z
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ilmctl/ilmctl/testdata/rustfsgen"
)

func main() {
	out := flag.String("out", "", "directory to write the pool into (created; must not exist)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "write: -out DIR is required")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "write: %s exists; choose a new directory\n", *out)
		os.Exit(2)
	}
	type want struct {
		Classification string `json:"classification"`
		Decision       string `json:"decision"`
		What           string `json:"what"`
	}
	expect := map[string]want{}
	for _, r := range rustfsgen.Records() {
		p := filepath.Join(*out, filepath.FromSlash(r.Key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(p, r.Data, 0o644); err != nil {
			fail(err)
		}
		expect[r.Key] = want{r.Classification, r.Decision, r.What}
	}
	b, err := json.MarshalIndent(map[string]any{"now": rustfsgen.Now, "records": expect}, "", " ")
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "expect.json"), append(b, '\n'), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("wrote %d records and expect.json to %s\n", len(expect), *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "write:", err)
	os.Exit(1)
}
