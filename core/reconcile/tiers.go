package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
)

// TierFile is the --tiers document: each tier a transition may name, with
// the environment variables that hold its credentials (never the
// credentials themselves). Unknown fields are rejected.
type TierFile struct {
	Tiers []TierEntry `json:"tiers"`
}

// TierEntry is one tier: its name as transition-tier holds it, its
// destination, and the names of the environment variables holding its
// access and secret keys.
type TierEntry struct {
	Name         string   `json:"name"`
	Type         TierType `json:"type"`
	Endpoint     string   `json:"endpoint"`
	Bucket       string   `json:"bucket"`
	Prefix       string   `json:"prefix"`
	Region       string   `json:"region"`
	AccessKeyEnv string   `json:"access_key_env"`
	SecretKeyEnv string   `json:"secret_key_env"`
}

// Tiers is a validated TierFile by tier name.
type Tiers map[string]TierEntry

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseTiers strictly decodes a --tiers document. Errors name the tier
// and field.
func ParseTiers(r io.Reader) (Tiers, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f TierFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the top-level object")
	}
	out := Tiers{}
	for i, t := range f.Tiers {
		if t.Name == "" {
			return nil, fmt.Errorf("tiers[%d]: name is required", i)
		}
		if _, dup := out[t.Name]; dup {
			return nil, fmt.Errorf("tier %q: listed twice", t.Name)
		}
		if !t.Type.valid() {
			return nil, fmt.Errorf("tier %q: type %q: use one of %v (the type the cluster's tier configuration names)", t.Name, t.Type, TierTypes)
		}
		u, err := url.Parse(t.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("tier %q: endpoint %q: want http(s)://host[:port], spelled exactly as the cluster's tier configuration spells it", t.Name, t.Endpoint)
		}
		if t.Bucket == "" {
			return nil, fmt.Errorf("tier %q: bucket is required", t.Name)
		}
		if !envName.MatchString(t.AccessKeyEnv) || !envName.MatchString(t.SecretKeyEnv) {
			return nil, fmt.Errorf("tier %q: access_key_env and secret_key_env must name environment variables", t.Name)
		}
		out[t.Name] = t
	}
	return out, nil
}

// Destination is the entry's credential-independent destination.
func (e TierEntry) Destination() Destination {
	return Destination{Type: e.Type, Endpoint: e.Endpoint, Bucket: e.Bucket, Prefix: e.Prefix, Region: e.Region}
}

// Resolve reads the entry's credentials through env (os.LookupEnv in
// production). A variable that is unset is an error naming it.
func (e TierEntry) Resolve(env func(string) (string, bool)) (Tier, error) {
	ak, ok := env(e.AccessKeyEnv)
	if !ok {
		return Tier{}, fmt.Errorf("tier %q: environment variable %s (access_key_env) is not set", e.Name, e.AccessKeyEnv)
	}
	sk, ok := env(e.SecretKeyEnv)
	if !ok {
		return Tier{}, fmt.Errorf("tier %q: environment variable %s (secret_key_env) is not set", e.Name, e.SecretKeyEnv)
	}
	return Tier{Name: e.Name, Destination: e.Destination(), AccessKey: ak, SecretKey: sk}, nil
}
