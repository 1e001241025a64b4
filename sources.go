// Package gridsched holds the module's Go sources, embedded, so that the
// code identity every result records (internal/buildinfo) is a hash of
// the code that was compiled, not of a commit: a documentation-only
// commit keeps it, any change to a compiled file changes it. The
// simulator itself is in the packages below (start at cmd/gridsched and cli).
package gridsched

import "embed"

// Sources are the module's Go files (tests included; the identity skips
// them), go.mod and go.sum. buildinfo.TestSourcesCoverModule checks that
// every Go file of the module is matched, so a package in a deeper folder
// cannot escape the identity. The third level is named folder by folder:
// examples/ holds modules of their own, which cannot be embedded.
//
//go:embed go.mod go.sum *.go */*.go cli/*/*.go cmd/*/*.go external/*/*.go internal/*/*.go system/*/*.go
var Sources embed.FS
