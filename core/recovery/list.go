package recovery

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/ilmctl/ilmctl/core/metastore"
)

// Page sizes of `recovery ls`.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// ListFilter selects controls.
type ListFilter struct {
	Protocol       Protocol       // "" for all
	Classification Classification // "" for all
}

// ListPage is one page of controls.
type ListPage struct {
	Controls []*Control
	ETags    map[string]string
	// NextMarker continues the listing; "" on the last page.
	NextMarker string
	// BadKeys are control keys that failed strict decoding: the listing is
	// incomplete while any exist.
	BadKeys []string
}

// ErrBadMarker is a --marker that no listing produced.
var ErrBadMarker = errors.New("marker is not one this listing produced")

// EncodeMarker and decodeMarker keep the marker opaque: it is the last
// key of the page, base64url.
func EncodeMarker(key string) string { return base64.RawURLEncoding.EncodeToString([]byte(key)) }

func decodeMarker(m string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(m)
	if err != nil || !strings.HasPrefix(string(b), ControlPrefix) {
		return "", ErrBadMarker
	}
	return string(b), nil
}

// ListControls returns up to limit controls (1..MaxListLimit) after
// marker that match f, in key order. The whole prefix is paged through
// ListAll, so a truncated page without a continuation token is an error,
// never a short listing.
func ListControls(ctx context.Context, s metastore.Store, f ListFilter, limit int, marker string) (*ListPage, error) {
	if limit < 1 || limit > MaxListLimit {
		return nil, fmt.Errorf("limit %d: want 1..%d", limit, MaxListLimit)
	}
	after := ""
	if marker != "" {
		var err error
		if after, err = decodeMarker(marker); err != nil {
			return nil, err
		}
	}
	page := &ListPage{ETags: map[string]string{}}
	var last string
	full := false
	err := metastore.ListAll(ctx, s, ControlPrefix, 1000, func(objs []metastore.Object) error {
		for _, o := range objs {
			if o.Key <= after {
				continue
			}
			if full {
				page.NextMarker = EncodeMarker(last)
				return errStop
			}
			b, etag, err := s.Get(ctx, o.Key)
			if errors.Is(err, metastore.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			c, err := DecodeControl(o.Key, b)
			if err != nil {
				page.BadKeys = append(page.BadKeys, o.Key)
				continue
			}
			if (f.Protocol != "" && c.Protocol != f.Protocol) || (f.Classification != "" && c.Classification != f.Classification) {
				continue
			}
			page.Controls = append(page.Controls, c)
			page.ETags[c.ID] = etag
			last = o.Key
			full = len(page.Controls) == limit
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	return page, nil
}

var errStop = errors.New("stop")

// FindControl resolves a control ID (or an unambiguous prefix of at least
// 8 hex digits) in the control pool and returns it with its ETag.
func FindControl(ctx context.Context, s metastore.Store, id string) (*Control, string, error) {
	id = strings.ToLower(id)
	if len(id) == 64 {
		for _, p := range Protocols {
			b, etag, err := s.Get(ctx, ControlKey(p, id))
			if errors.Is(err, metastore.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, "", err
			}
			c, err := DecodeControl(ControlKey(p, id), b)
			if err != nil {
				return nil, "", fmt.Errorf("control %s is unreadable (%v): %w", id, err, ErrConflict)
			}
			return c, etag, nil
		}
		return nil, "", fmt.Errorf("no recovery control %s: %w", id, metastore.ErrNotFound)
	}
	if len(id) < 8 {
		return nil, "", fmt.Errorf("control ID %q is too short: give at least 8 hex digits", id)
	}
	var found []string
	err := metastore.ListAll(ctx, s, ControlPrefix, 1000, func(objs []metastore.Object) error {
		for _, o := range objs {
			if _, cid, err := ParseArtifactKey(ControlPrefix, o.Key); err == nil && strings.HasPrefix(cid, id) {
				found = append(found, cid)
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	switch len(found) {
	case 0:
		return nil, "", fmt.Errorf("no recovery control starts with %s: %w", id, metastore.ErrNotFound)
	case 1:
		return FindControl(ctx, s, found[0])
	}
	return nil, "", fmt.Errorf("control ID %s is ambiguous (%d controls start with it): give more digits", id, len(found))
}

// PoolListingErrors pages through ilm/ in every pool without reading any
// record and returns one line per pool that cannot be listed completely
// (including a truncated page without a continuation token). While any
// exists, control counts cannot cover every source record and `ls` labels
// them incomplete.
func PoolListingErrors(ctx context.Context, pools []metastore.Store) []string {
	var out []string
	for _, p := range pools {
		err := metastore.ListAll(ctx, p, "ilm/", 1000, func([]metastore.Object) error { return nil })
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", PoolID(p.Name()), err))
		}
	}
	return out
}
