//go:build race

package filer

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = true
