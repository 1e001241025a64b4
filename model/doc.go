// Package model holds the plain data of a simulation: jobs and platforms.
// It performs no I/O except decoding a platform description handed to it
// as bytes, and knows nothing about scheduling.
package model
