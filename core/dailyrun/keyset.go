package dailyrun

import (
	"hash/maphash"
	"sync"
)

// keySet is a set of strings that keeps 128 bits of hash per member, not
// the string: the pass remembers every target it dispatched and every key
// its cold walk left pending, and at millions of versions the strings
// themselves would be most of its memory. Two seeds make two independent
// 64-bit maphash values; two members share both with a probability of
// about n²/2¹²⁹, nothing a pass can meet. Past its memory bound the set
// moves its members to a spill file (see keyTable), so its memory stays
// flat however many members it gains. It is not safe for concurrent use,
// except has once nothing adds any more.
type keySet struct{ t *keyTable }

// keySeeds are the process's two maphash seeds; a keySet is never
// persisted or shared between processes.
var keySeeds = sync.OnceValue(func() [2]maphash.Seed {
	return [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
})

// newKeySet is a set holding up to memMax members in memory, spilling
// past that into files under sp.
func newKeySet(sp *spill, memMax int) *keySet { return &keySet{t: newKeyTable(sp, memMax)} }

func keyHash(s string) [2]uint64 {
	seeds := keySeeds()
	return [2]uint64{maphash.String(seeds[0], s), maphash.String(seeds[1], s)}
}

// has reports whether s is a member. A spill file that cannot be read
// returns the error: the caller decides which answer is the safe one.
func (k *keySet) has(s string) (bool, error) {
	found := false
	err := k.t.each(keyHash(s), func(int64) bool { found = true; return false })
	return found, err
}

// add adds s and reports whether it was new. A spill file that cannot be
// read counts s as new.
func (k *keySet) add(s string) bool {
	h := keyHash(s)
	if _, ok := k.t.mem[h]; ok {
		return false
	}
	found := false
	if err := k.t.each(h, func(int64) bool { found = true; return false }); err == nil && found {
		return false
	}
	k.t.put(h, 0)
	return true
}

// keyDues maps strings, kept as keySet keeps them (128 bits of hash), to
// the earliest of the Unix-ns times noted for each; it spills as keySet
// does. It is not safe for concurrent use, except get once nothing notes
// any more.
type keyDues struct{ t *keyTable }

func newKeyDues(sp *spill, memMax int) *keyDues { return &keyDues{t: newKeyTable(sp, memMax)} }

// note records dueNs for s, keeping the earliest.
func (k *keyDues) note(s string, dueNs int64) {
	h := keyHash(s)
	if d, ok := k.t.mem[h]; ok && d <= dueNs {
		return
	}
	// A spilled time for s stays in its file; get takes the earliest of
	// them all.
	k.t.put(h, dueNs)
}

// get returns s's earliest time; ok is false when none was noted. A spill
// file that cannot be read returns the error.
func (k *keyDues) get(s string) (dueNs int64, ok bool, err error) {
	err = k.t.each(keyHash(s), func(v int64) bool {
		if !ok || v < dueNs {
			dueNs, ok = v, true
		}
		return true
	})
	return dueNs, ok, err
}
