// Package safetensors reads and writes model checkpoints in the safetensors
// format of Hugging Face, so that a checkpoint saved here loads in PyTorch
// (safetensors.torch.load_file) and one saved there loads here.
//
// A file is laid out as
//
//	bytes [0,8)      N, the header length, little-endian uint64
//	bytes [8,8+N)    the header: a UTF-8 JSON object
//	bytes [8+N,EOF)  the data section: raw little-endian tensor elements
//
// and the header maps each tensor name to its element type, shape and the
// byte range of its elements within the data section, beside an optional
// "__metadata__" object of string values:
//
//	{"__metadata__":{"step":"100"},
//	 "w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}
//
// Elements are stored row-major (C order) over the shape, which is kept as
// PyTorch stores it: an nn.Linear weight is (out,in).
//
// Design stance: the writer is narrow and the reader is strict. Only F32 is
// written, and the bytes are a pure function of the arguments, so a checkpoint
// can be compared byte for byte. The reader accepts F32 and F64 (narrowed to
// float32) and rejects anything else, and it refuses every header the
// reference implementation refuses, plus duplicate keys, which the reference
// silently collapses. Bad input yields an error naming the tensor at fault,
// never a panic. The data section is held in memory whole, since the models
// checkpointed here are tiny.
//
// Write runs in three steps:
//
//  1. Validate every tensor (unique valid UTF-8 names, non-negative dims,
//     len(Data) equal to the product of the shape) before writing a byte.
//  2. Encode the header as compact JSON: "__metadata__" first with its keys
//     sorted, then the tensors in the given order with contiguous offsets,
//     padded with spaces to a multiple of 8 bytes so that the data section is
//     8-byte aligned.
//  3. Write N, the header and the elements.
//
// Read mirrors it in four steps:
//
//  1. Read N and refuse N > MaxHeaderSize (100,000,000) or N beyond the end
//     of the input.
//  2. Parse the header: valid UTF-8, starting with '{', valid JSON, no
//     duplicate keys; for every tensor a supported dtype, non-negative
//     integer dims and offsets spanning exactly product(shape)·dtype size
//     bytes. Unknown fields of an entry are ignored, as in the reference.
//  3. Sort the tensors by data offsets and check that they tile the data
//     section: each begins where the previous one ends.
//  4. Read the data section, check that it ends exactly at the last offset,
//     and decode each tensor's bytes into float32.
//
// The rules, the 100 MB header limit and the 8-byte padding follow the
// reference implementation, github.com/huggingface/safetensors,
// safetensors/src/tensor.rs (MAX_HEADER_SIZE, Metadata::validate and
// prepare).
package safetensors
