// Package awsconf builds the aws-sdk-go-v2 configuration every S3 client in
// ilmctl shares, so credentials and region resolve the same way for the
// s3:// filer and s3:// metadata pools.
package awsconf

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
)

// DefaultRegion signs requests when neither the caller, AWS_REGION nor a
// shared config profile names a region; S3-compatible servers accept it.
const DefaultRegion = "us-east-1"

// Load returns the SDK configuration with the SDK's default credential
// chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, shared
// credentials and config files with AWS_PROFILE, SSO, container and
// instance roles). region overrides AWS_REGION and the profile's region.
// Credentials are resolved lazily, on the first request. The SDK logs
// nothing: its failures reach the caller as errors.
func Load(ctx context.Context, region string) (aws.Config, error) {
	// The SDK's logger writes its own lines to stderr ("SDK ... WARN
	// falling back to IMDSv1" while credentials resolve): ilmctl reports
	// what failed in its own one line, from the errors the SDK returns.
	opts := []func(*config.LoadOptions) error{
		config.WithLogger(logging.Nop{}),
		config.WithClientLogMode(0),
	}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("aws configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	return cfg, nil
}
