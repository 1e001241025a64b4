//go:build !linux

package cli

// limitAddressSpace: no address-space cap outside Linux (the corpus
// still checks every refusal).
func limitAddressSpace(uint64) bool { return false }
