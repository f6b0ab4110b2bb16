package main

import (
	"context"
)

//go:generate go tool rpcgen --ts archive_client.ts Archive

// Archive compacts an archive: a long job, run as a task of the Tasks
// extension, that reports its progress, asks for a confirmation midway and
// stops when cancelled.
//
//rpcgen:service name=archive
type Archive interface {
	// Compact compacts the archive batch by batch. Halfway it asks the
	// user whether to go on and delete the originals; declining stops it
	// there. It runs only as a task: the call is answered at once, and the
	// client follows the task.
	//
	//rpcgen:tool task=required destructive openworld=false
	Compact(ctx context.Context, batches int) (Report, error)
}

// Report says what a compaction did.
type Report struct {
	// Compacted is the number of batches compacted.
	Compacted int `json:"compacted"`
	// Deleted says whether the originals were deleted.
	Deleted bool `json:"deleted"`
}
