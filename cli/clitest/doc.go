// Package clitest holds tests of the command line as its users drive it:
// the external scheduler from simulate and from a spec, and the module of
// examples/extension, which builds a gridsched of its own with package
// cli. They use cli.Run (or the built binary), as a program would; they
// live apart from package cli's own tests so that each package's test
// time stays well inside go test's limit.
package clitest
