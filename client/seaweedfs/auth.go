package seaweedfs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/pelletier/go-toml/v2"
	"google.golang.org/grpc/metadata"
)

// Environment variables AuthFromEnv reads. The first two are SeaweedFS's
// own overrides of security.toml's jwt.filer_signing section (viper's
// WEED_ prefix), so a shell configured for `weed` works unchanged.
const (
	EnvSigningKey    = "WEED_JWT_FILER_SIGNING_KEY"
	EnvSigningExpiry = "WEED_JWT_FILER_SIGNING_EXPIRES_AFTER_SECONDS"
	// EnvSecurityTOML names a security.toml to read jwt.filer_signing from
	// when EnvSigningKey is unset.
	EnvSecurityTOML = "ILMCTL_SEAWEEDFS_SECURITY_TOML"
)

// Auth mints the admin token the S3 gateway's lifecycle service requires
// when the cluster has a JWT signing key (weed/s3api/s3api_server_grpc.go
// checkAdminAuth): an HS256 JWT signed with jwt.filer_signing.key, with no
// claims but an optional expiry, sent as "authorization: Bearer <jwt>"
// (weed/security/jwt.go GenJwtForFilerAdmin). Without a key the gateway
// accepts only callers on its own host.
type Auth struct {
	SigningKey string
	// ExpiresAfter is the token lifetime; 0 mints tokens without expiry,
	// as SeaweedFS does when expires_after_seconds is 0.
	ExpiresAfter time.Duration
}

// AuthFromEnv reads the signing key from EnvSigningKey (and
// EnvSigningExpiry), else from the [jwt.filer_signing] section of the
// security.toml named by EnvSecurityTOML; neither set is no auth.
func AuthFromEnv() (Auth, error) {
	if key := os.Getenv(EnvSigningKey); key != "" {
		a := Auth{SigningKey: key}
		if v := os.Getenv(EnvSigningExpiry); v != "" {
			sec, err := strconv.Atoi(v)
			if err != nil || sec < 0 {
				return Auth{}, fmt.Errorf("%w: %s=%q is not a number of seconds", ErrBadSecurityConfig, EnvSigningExpiry, v)
			}
			a.ExpiresAfter = time.Duration(sec) * time.Second
		}
		return a, nil
	}
	p := os.Getenv(EnvSecurityTOML)
	if p == "" {
		return Auth{}, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return Auth{}, fmt.Errorf("%w: %v", ErrBadSecurityConfig, err)
	}
	return parseSecurityTOML(data)
}

func parseSecurityTOML(data []byte) (Auth, error) {
	var doc struct {
		JWT struct {
			FilerSigning struct {
				Key                 string `toml:"key"`
				ExpiresAfterSeconds int    `toml:"expires_after_seconds"`
			} `toml:"filer_signing"`
		} `toml:"jwt"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return Auth{}, fmt.Errorf("%w: %v", ErrBadSecurityConfig, err)
	}
	fs := doc.JWT.FilerSigning
	if fs.ExpiresAfterSeconds < 0 {
		return Auth{}, fmt.Errorf("%w: jwt.filer_signing.expires_after_seconds is negative", ErrBadSecurityConfig)
	}
	return Auth{SigningKey: fs.Key, ExpiresAfter: time.Duration(fs.ExpiresAfterSeconds) * time.Second}, nil
}

// token mints one admin token at now.
func (a Auth) token(now time.Time) (string, error) {
	claims := jwt.RegisteredClaims{}
	if a.ExpiresAfter > 0 {
		claims.ExpiresAt = jwt.NewNumericDate(now.Add(a.ExpiresAfter))
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(a.SigningKey))
}

// outgoing returns ctx carrying the admin token, or ctx itself without a
// signing key.
func (a Auth) outgoing(ctx context.Context) (context.Context, error) {
	if a.SigningKey == "" {
		return ctx, nil
	}
	tok, err := a.token(time.Now())
	if err != nil {
		return nil, fmt.Errorf("sign admin token: %w", err)
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok), nil
}
