// Package atomicfiletest checks, for tests, that a file writer replaces
// files atomically: a reader racing many rewrites only ever sees one whole
// version or the other.
package atomicfiletest

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
)

// NeverPartial writes two contents of different sizes (64 KiB and 192 KiB)
// alternately 200 times with write while a goroutine reads with read, and
// fails t if the reader ever gets an error or anything but one whole
// content. write is called once first, so read never meets a missing file.
func NeverPartial(t testing.TB, read func() ([]byte, error), write func([]byte) error) {
	t.Helper()
	a := bytes.Repeat([]byte("a"), 64<<10)
	b := bytes.Repeat([]byte("b"), 192<<10)
	if err := write(a); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	bad := make(chan string, 1)
	go func() {
		defer close(bad)
		for !done.Load() {
			got, err := read()
			if err != nil {
				bad <- err.Error()
				return
			}
			if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				bad <- fmt.Sprintf("a partial file of %d bytes", len(got))
				return
			}
		}
	}()
	for i := range 200 {
		data := a
		if i%2 == 0 {
			data = b
		}
		if err := write(data); err != nil {
			done.Store(true)
			t.Fatal(err)
		}
	}
	done.Store(true)
	if msg, ok := <-bad; ok {
		t.Fatalf("reader saw %s", msg)
	}
}
