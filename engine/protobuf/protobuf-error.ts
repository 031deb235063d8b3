/** Malformed protobuf input (or an object protobuf cannot carry); the text reads as Go's. */
export class ProtobufError extends Error {}
