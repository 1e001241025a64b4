//go:build !unix

package experiment

import "os"

// Without flock the folder is not locked.
func flock(*os.File) error { return nil }

func funlock(*os.File) {}
