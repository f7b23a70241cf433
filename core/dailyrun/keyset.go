package dailyrun

import (
	"encoding/binary"
	"hash/fnv"
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
type keyDues struct {
	t    *keyTable
	hash func(string) [2]uint64
}

func newKeyDues(sp *spill, memMax int) *keyDues {
	return &keyDues{t: newKeyTable(sp, memMax), hash: keyHash}
}

// newStableKeyDues is a keyDues whose hashes are the same in every
// process (FNV-128a), so its entries can be saved and read by a later
// pass (see walkKeys). Its callers only ever learn "look the key up" from
// a member, so two keys sharing a hash, even on purpose, cost a lookup,
// never a skipped one.
func newStableKeyDues(sp *spill, memMax int) *keyDues {
	return &keyDues{t: newKeyTable(sp, memMax), hash: stableKeyHash}
}

func stableKeyHash(s string) [2]uint64 {
	h := fnv.New128a()
	_, _ = h.Write([]byte(s))
	var sum [16]byte
	h.Sum(sum[:0])
	return [2]uint64{binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:])}
}

// note records dueNs for s, keeping the earliest.
func (k *keyDues) note(s string, dueNs int64) { k.noteHash(k.hash(s), dueNs) }

func (k *keyDues) noteHash(h [2]uint64, dueNs int64) {
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
	err = k.t.each(k.hash(s), func(v int64) bool {
		if !ok || v < dueNs {
			dueNs, ok = v, true
		}
		return true
	})
	return dueNs, ok, err
}
