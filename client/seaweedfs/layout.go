package seaweedfs

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"github.com/seaweedfs/seaweedfs/weed/s3api/s3_constants"
	"github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle/scheduler"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Extended keys and names of SeaweedFS's S3 layout, taken from the pinned
// SeaweedFS module itself (weed/s3api/s3_constants, and the lifecycle
// scheduler's key), so they cannot drift from what that version writes.
const (
	// On the bucket directory entry.
	extLifecycleXML = scheduler.BucketLifecycleConfigurationXMLKey
	// weed/s3api/s3_constants/extend_key.go.
	extVersioning          = s3_constants.ExtVersioningKey
	extObjectLockEnabled   = s3_constants.ExtObjectLockEnabledKey
	extVersionID           = s3_constants.ExtVersionIdKey
	extDeleteMarker        = s3_constants.ExtDeleteMarkerKey
	extETag                = s3_constants.ExtETagKey
	extLatestVersionID     = s3_constants.ExtLatestVersionIdKey
	extNullVersionIsLatest = s3_constants.ExtNullVersionIsLatestKey
	extNoncurrentSinceNs   = s3_constants.ExtNoncurrentSinceNsKey
	extRetainUntil         = s3_constants.ExtRetentionUntilDateKey // Unix seconds, decimal
	extLegalHold           = s3_constants.ExtLegalHoldKey          // "ON" or "OFF"
	extMultipartObjectKey  = s3_constants.ExtMultipartObjectKey    // on .uploads/<id>
	// weed/s3api/s3_constants/header.go.
	tagPrefix = s3_constants.AmzObjectTaggingPrefix
	// Set on a directory entry that also holds the object named by its
	// path.
	extPrefixObject = s3_constants.SeaweedFSPrefixObject
	// weed/s3api/s3_constants/s3_actions.go.
	versionsSuffix = s3_constants.VersionsFolder
	uploadsDir     = s3_constants.MultipartUploadsFolder
	// weed/s3api/s3api_version_id.go getVersionFileName; not exported by
	// a package ilmctl can import without the whole S3 gateway.
	versionFilePrefix = "v_"
)

// parseBucket reads a bucket directory entry. Per
// weed/s3api/s3api_bucket_config.go getVersioningState, a bucket with
// Object Lock enabled is versioning Enabled whatever its explicit setting;
// Object Lock is enabled by "Enabled" or "true"
// (weed/s3api/object_lock_utils.go LoadObjectLockConfigurationFromExtended).
func parseBucket(e *filer_pb.Entry) (filer.Bucket, error) {
	b := filer.Bucket{Name: e.Name, LifecycleXML: string(e.Extended[extLifecycleXML])}
	switch lock := string(e.Extended[extObjectLockEnabled]); lock {
	case "Enabled", "true":
		b.ObjectLock = true
	}
	switch v := filer.Versioning(e.Extended[extVersioning]); v {
	case filer.VersioningOff, filer.VersioningEnabled, filer.VersioningSuspended:
		b.Versioning = v
	default:
		return filer.Bucket{}, fmt.Errorf("%w: bucket %s has %s=%q", ErrUnknownVersioning, e.Name, extVersioning, string(v))
	}
	if b.ObjectLock {
		b.Versioning = filer.VersioningEnabled
	}
	return b, nil
}

// mtimeNs combines FuseAttributes' Mtime (seconds) and MtimeNs (the
// nanosecond component) into Unix nanoseconds, as computeEntryIdentity does.
func mtimeNs(e *filer_pb.Entry) int64 {
	a := e.GetAttributes()
	return a.GetMtime()*int64(time.Second) + int64(a.GetMtimeNs())
}

// The store token (filer.Version.StoreToken) carries the two parts of the
// LifecycleDelete CAS witness that filer.Identity has no field for
// (weed/s3api/s3api_internal_lifecycle.go computeEntryIdentity): the hash
// of the Extended map and the head chunk's file id, written
// "<hex hash>/<head fid>". Either part may be empty (no Extended entries,
// no chunks); the hash is otherwise sha256-sized, and a file id
// ("3,01637037d6") never holds a "/". The separator is always present, so
// a token is never "" and "" means the version was not read through this
// store.
const storeTokenSep = "/"

// storeTokenOf returns e's store token.
func storeTokenOf(e *filer_pb.Entry) string {
	fid := ""
	if chunks := e.GetChunks(); len(chunks) > 0 {
		// Listing and meta-log entries may carry only Fid; GetFileIdString
		// rebuilds the string the server compares.
		fid = chunks[0].GetFileIdString()
	}
	return hex.EncodeToString(hashExtended(e.Extended)) + storeTokenSep + fid
}

// parseStoreToken splits a token storeTokenOf made into the Extended hash
// (nil when the map was empty, as HashExtended returns) and the head fid.
func parseStoreToken(tok string) (extHash []byte, headFid string, err error) {
	h, fid, ok := strings.Cut(tok, storeTokenSep)
	if !ok {
		return nil, "", fmt.Errorf("%w: %q has no %q", ErrBadStoreToken, tok, storeTokenSep)
	}
	if h == "" {
		return nil, fid, nil
	}
	extHash, err = hex.DecodeString(h)
	if err != nil || len(extHash) != sha256.Size {
		return nil, "", fmt.Errorf("%w: %q: Extended hash is not %d hex bytes", ErrBadStoreToken, tok, sha256.Size)
	}
	return extHash, fid, nil
}

// hashExtended is the Extended-map fingerprint both sides of the
// LifecycleDelete CAS compute, per weed/s3api/s3lifecycle/identity.go
// HashExtended: sha256 over the keys in sorted order, each key and value
// written as "<decimal length>:<bytes>"; nil for an empty map.
func hashExtended(ext map[string][]byte) []byte {
	if len(ext) == 0 {
		return nil
	}
	keys := make([]string, 0, len(ext))
	for k := range ext {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		v := ext[k]
		fmt.Fprintf(h, "%d:%s%d:", len(k), k, len(v))
		h.Write(v)
	}
	return h.Sum(nil)
}

// etagOf is the S3 ETag of an entry, unquoted: the stored
// Seaweed-X-Amz-ETag when present, else weed/filer/filechunks.go ETag (the
// hex MD5 attribute, else derived from the chunks' base64 MD5s).
func etagOf(e *filer_pb.Entry) string {
	if v := e.Extended[extETag]; len(v) > 0 {
		return strings.Trim(string(v), `"`)
	}
	if sum := e.GetAttributes().GetMd5(); len(sum) > 0 {
		return hex.EncodeToString(sum)
	}
	chunks := e.GetChunks()
	switch len(chunks) {
	case 0:
		return ""
	case 1:
		return hex.EncodeToString(b64md5(chunks[0].ETag))
	}
	var all []byte
	for _, c := range chunks {
		all = append(all, b64md5(c.ETag)...)
	}
	return fmt.Sprintf("%x-%d", md5.Sum(all), len(chunks))
}

// b64md5 mirrors weed/util Base64Md5ToBytes: a chunk ETag is the base64
// MD5, or (older data) already hex.
func b64md5(s string) []byte {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b
	}
	if b, err := hex.DecodeString(s); err == nil {
		return b
	}
	return []byte(s)
}

// versionIDFromFileName returns <id> of a "v_<id>" version file.
func versionIDFromFileName(name string) (string, bool) {
	id, ok := strings.CutPrefix(name, versionFilePrefix)
	return id, ok && id != ""
}

// versionFileName is weed/s3api/s3api_version_id.go getVersionFileName.
func versionFileName(versionID string) string { return versionFilePrefix + versionID }

// versionTimestampNs decodes the time embedded in a version id, per
// weed/s3api/s3api_version_id.go: the first 16 hex digits are
// MaxInt64-ns (new, inverted format: above 0x4000000000000000) or ns (old
// format). ok is false for "null" and ids that do not parse.
func versionTimestampNs(id string) (int64, bool) {
	if len(id) < 16 || id == filer.NullVersionID {
		return 0, false
	}
	v, err := strconv.ParseUint(id[:16], 16, 64)
	if err != nil || v > math.MaxInt64 {
		return 0, false
	}
	if v > 0x4000000000000000 {
		return int64(math.MaxInt64 - v), true
	}
	return int64(v), true
}

// versionFromEntry reads one version entry's S3 metadata.
func versionFromEntry(e *filer_pb.Entry, versionID string) (filer.Version, error) {
	bad := func(format string, args ...any) (filer.Version, error) {
		return filer.Version{}, fmt.Errorf("%w: %s (version %s): %s", ErrBadEntry, e.Name, versionID, fmt.Sprintf(format, args...))
	}
	v := filer.Version{
		VersionID:  versionID,
		MtimeNs:    mtimeNs(e),
		Size:       int64(e.GetAttributes().GetFileSize()),
		ETag:       etagOf(e),
		StoreToken: storeTokenOf(e),
	}
	if raw, ok := e.Extended[extDeleteMarker]; ok {
		switch string(raw) {
		case "true":
			v.DeleteMarker = true
			v.Size, v.ETag = 0, ""
		case "false", "":
		default:
			return bad("%s=%q", extDeleteMarker, raw)
		}
	}
	if raw, ok := e.Extended[extNoncurrentSinceNs]; ok && len(raw) > 0 {
		ns, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || ns < 0 {
			return bad("%s=%q", extNoncurrentSinceNs, raw)
		}
		v.NoncurrentSinceNs = ns
	}
	if raw, ok := e.Extended[extRetainUntil]; ok && len(raw) > 0 {
		sec, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return bad("%s=%q", extRetainUntil, raw)
		}
		v.RetainUntil = time.Unix(sec, 0).UTC()
	}
	if raw, ok := e.Extended[extLegalHold]; ok {
		switch string(raw) {
		case "ON":
			v.LegalHold = true
		case "OFF", "":
		default:
			return bad("%s=%q", extLegalHold, raw)
		}
	}
	for k, val := range e.Extended {
		if name, ok := strings.CutPrefix(k, tagPrefix); ok && name != "" {
			if v.Tags == nil {
				v.Tags = map[string]string{}
			}
			v.Tags[name] = string(val)
		}
	}
	return v, nil
}

// objectParts is what the filer holds for one logical key: the bare entry
// at <key> (the null version) and the <key>.versions directory with its
// v_<id> files. Any part may be absent.
type objectParts struct {
	key      string
	bare     *filer_pb.Entry
	versions *filer_pb.Entry
	files    []*filer_pb.Entry
}

// assemble orders the key's versions newest first with the latest at
// index 0.
//
// The latest is decided as SeaweedFS decides it
// (weed/s3api/s3api_object_versioning.go doGetLatestObjectVersion,
// recoverLatestListEntryByScan, nullObjectWins): the .versions
// directory's Seaweed-X-Amz-Latest-Version-Id pointer when set (it must
// name an existing file); else the bare null object when
// Seaweed-X-Amz-Null-Version-Is-Latest is "true" or there is no
// .versions directory; else the newest version file by id, unless the
// null object's mtime seconds are strictly newer. The others follow by
// time, newest first: the id's embedded timestamp for versions, mtime for
// the null version.
func assemble(p objectParts) (filer.Object, bool, error) {
	type item struct {
		v  filer.Version
		ts int64
	}
	var items []item
	byID := map[string]int{}
	for _, f := range p.files {
		id, ok := versionIDFromFileName(f.Name)
		if !ok || f.IsDirectory {
			return filer.Object{}, false, fmt.Errorf("%w: %s%s/%s is not a v_<id> version file", ErrBadEntry, p.key, versionsSuffix, f.Name)
		}
		if stamp := string(f.Extended[extVersionID]); stamp != "" && stamp != id {
			return filer.Object{}, false, fmt.Errorf("%w: %s%s/%s carries %s=%q", ErrBadEntry, p.key, versionsSuffix, f.Name, extVersionID, stamp)
		}
		v, err := versionFromEntry(f, id)
		if err != nil {
			return filer.Object{}, false, fmt.Errorf("%s: %w", p.key, err)
		}
		ts, ok := versionTimestampNs(id)
		if !ok {
			ts = v.MtimeNs
		}
		byID[id] = len(items)
		items = append(items, item{v: v, ts: ts})
	}
	if _, dup := byID[filer.NullVersionID]; dup && p.bare != nil {
		// Older SeaweedFS releases could leave a null-version entry in
		// <key>.versions/v_null beside the bare null object: one version ID,
		// two entries. Which one a delete of "null" reaches is the server's
		// guess, so the key is not acted on.
		return filer.Object{}, false, fmt.Errorf("%w: %s and %s%s/%s both carry version ID %q",
			filer.ErrAmbiguousLayout, p.key, p.key, versionsSuffix, versionFileName(filer.NullVersionID), filer.NullVersionID)
	}
	nullIdx := -1
	if p.bare != nil {
		v, err := versionFromEntry(p.bare, filer.NullVersionID)
		if err != nil {
			return filer.Object{}, false, fmt.Errorf("%s: %w", p.key, err)
		}
		nullIdx = len(items)
		items = append(items, item{v: v, ts: v.MtimeNs})
	}
	if len(items) == 0 {
		return filer.Object{Key: p.key}, false, nil
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].ts != items[j].ts {
			return items[i].ts > items[j].ts
		}
		return compareVersionIDs(items[i].v.VersionID, items[j].v.VersionID) < 0
	})
	latest := -1
	find := func(id string) int {
		for i := range items {
			if items[i].v.VersionID == id {
				return i
			}
		}
		return -1
	}
	pointer := ""
	if p.versions != nil {
		pointer = string(p.versions.Extended[extLatestVersionID])
		// SeaweedFS sets the pointer and clears the null-is-latest flag in
		// one write, and the reverse (s3api_object_handlers_put.go); both
		// set name two different latest versions.
		if pointer != "" && string(p.versions.Extended[extNullVersionIsLatest]) == "true" {
			return filer.Object{}, false, fmt.Errorf("%w: %s%s has both %s=%q and %s=true",
				filer.ErrAmbiguousLayout, p.key, versionsSuffix, extLatestVersionID, pointer, extNullVersionIsLatest)
		}
	}
	switch {
	case pointer != "":
		if _, ok := byID[pointer]; !ok {
			return filer.Object{}, false, fmt.Errorf("%w: %s%s points to %q", ErrDanglingLatest, p.key, versionsSuffix, pointer)
		}
		latest = find(pointer)
	case nullIdx >= 0 && (p.versions == nil || string(p.versions.Extended[extNullVersionIsLatest]) == "true"):
		latest = find(filer.NullVersionID)
	default:
		newest := -1 // newest version file by id
		for i := range items {
			if items[i].v.VersionID == filer.NullVersionID {
				continue
			}
			if newest < 0 || compareVersionIDs(items[i].v.VersionID, items[newest].v.VersionID) < 0 {
				newest = i
			}
		}
		latest = newest
		if n := find(filer.NullVersionID); n >= 0 {
			if newest < 0 || p.bare.GetAttributes().GetMtime() > p.versionFile(items[newest].v.VersionID).GetAttributes().GetMtime() {
				latest = n
			}
		}
	}
	if latest > 0 {
		it := items[latest]
		copy(items[1:latest+1], items[:latest])
		items[0] = it
	}
	obj := filer.Object{Key: p.key, Versions: make([]filer.Version, len(items))}
	for i := range items {
		obj.Versions[i] = items[i].v
		obj.Versions[i].IsLatest = i == 0
	}
	return obj, true, nil
}

func (p objectParts) versionFile(id string) *filer_pb.Entry {
	for _, f := range p.files {
		if f.Name == versionFileName(id) {
			return f
		}
	}
	return nil
}

// compareVersionIDs orders two version ids newest first (negative when a
// is newer), per weed/s3api/s3api_version_id.go compareVersionIds: "null"
// last; same format compares lexicographically (inverted for the old
// format); mixed formats compare embedded timestamps.
func compareVersionIDs(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == filer.NullVersionID:
		return 1
	case b == filer.NullVersionID:
		return -1
	}
	ta, okA := versionTimestampNs(a)
	tb, okB := versionTimestampNs(b)
	newA, newB := okA && isInverted(a), okB && isInverted(b)
	if newA == newB {
		less := a < b
		if !newA {
			less = !less
		}
		if less {
			return -1
		}
		return 1
	}
	switch {
	case ta > tb:
		return -1
	case ta < tb:
		return 1
	}
	return 0
}

func isInverted(id string) bool {
	v, err := strconv.ParseUint(id[:16], 16, 64)
	return err == nil && v > 0x4000000000000000
}
