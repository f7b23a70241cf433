package recovery

import (
	"context"
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/core/metastore"
)

// refusal is a pool's refusal to delete conditionally, kept word for word
// (it names the server behaviour and the fix) and matching both
// metastore.ErrConditionalDeleteUnsupported and ErrRefused.
type refusal struct{ err error }

func (r refusal) Error() string   { return r.err.Error() }
func (r refusal) Unwrap() []error { return []error{r.err, ErrRefused} }

// deleteCheckErr classifies what a pool said when asked whether its
// DeleteIfMatch is conditional: a server that showed it is not is a
// refusal (exit 1); a question that could not be answered leaves the pool
// unproven, which is no cleanup authority either (incomplete, exit 3).
func deleteCheckErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, metastore.ErrConditionalDeleteUnsupported):
		return refusal{err}
	default:
		return fmt.Errorf("%v: %w", err, ErrIncomplete)
	}
}

// requireConditionalDelete asks each of pools, before a command's first
// write, whether its conditional delete is conditional
// (docs/design/recovery.md#conditional-delete-probe), so a pool that would
// delete a replacement refuses the run before anything is written or
// deleted. Each pool (by name) is asked once.
func requireConditionalDelete(ctx context.Context, pools []metastore.Store) error {
	asked := map[string]bool{} // by name: a Store need not be comparable
	for _, p := range pools {
		if p == nil || asked[p.Name()] {
			continue
		}
		asked[p.Name()] = true
		if err := deleteCheckErr(p.CheckConditionalDelete(ctx)); err != nil {
			return err
		}
	}
	return nil
}
