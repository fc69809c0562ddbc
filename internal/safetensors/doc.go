// Package safetensors reads and writes model checkpoints in the safetensors
// format of Hugging Face (https://github.com/huggingface/safetensors), so that
// weights trained here load in PyTorch and the other way round.
//
// Design stance: the whole file is held in memory (our models are tiny), every
// rule of the reference implementation is checked on read, and bad input gives
// an error naming the tensor and the fix, never a panic. Only F32 is written;
// F32 and F64 are read (F64 is rounded to float32).
//
// File layout, all integers little-endian:
//
//	bytes [0, 8)       N, the header length as uint64
//	bytes [8, 8+N)     UTF-8 JSON header, padded with spaces so that N%8 == 0
//	bytes [8+N, end)   data section: the raw tensor bytes, back to back
//
// The header maps each tensor name to its entry, plus an optional
// "__metadata__" object of string to string:
//
//	{"__metadata__":{"format":"pt"},
//	 "w":{"dtype":"F32","shape":[2,1],"data_offsets":[0,8]}}
//
// Read proceeds in steps:
//
//  1. Read N and refuse N > MaxHeaderSize (the reference limit, 100,000,000).
//  2. Read the header, check it is UTF-8 and one JSON object (trailing
//     whitespace allowed), with no duplicate keys.
//  3. Check each entry: known dtype, non-negative integer dims, two offsets
//     with end-begin == product(shape) * dtype size.
//  4. Sort entries by offset and check they tile the data section exactly:
//     no gap, no overlap, nothing left over.
//  5. Decode the data into float32.
package safetensors
