// Package recovery decides ilmctl's bounded recovery controls and the
// operator disposition of stuck durable ILM records
// (docs/design/recovery.md): the control record and its retry policy, the
// recovery scan, observation receipts, canonical exports and the
// crash-convergent abandon of legacy tier-delete journals.
//
// It talks to metadata pools only through core/metastore.Store and reads
// the time only through an injected clock. Nothing here can reach a tier
// backend: there is no backend interface to call, so no recovery action
// can issue a remote PUT, GET, probe or DELETE.
package recovery
