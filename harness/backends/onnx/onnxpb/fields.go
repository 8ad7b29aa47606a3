package onnxpb

import "google.golang.org/protobuf/encoding/protowire"

// Field numbers from onnx.proto, shared by the writer and the reader.
const (
	modelIRVersion       protowire.Number = 1
	modelProducerName    protowire.Number = 2
	modelProducerVersion protowire.Number = 3
	modelDocString       protowire.Number = 6
	modelGraph           protowire.Number = 7
	modelOpsetImport     protowire.Number = 8
	modelMetadataProps   protowire.Number = 14

	opsetDomain  protowire.Number = 1
	opsetVersion protowire.Number = 2

	graphNode        protowire.Number = 1
	graphName        protowire.Number = 2
	graphInitializer protowire.Number = 5
	graphInput       protowire.Number = 11
	graphOutput      protowire.Number = 12
	graphValueInfo   protowire.Number = 13

	nodeInput     protowire.Number = 1
	nodeOutput    protowire.Number = 2
	nodeName      protowire.Number = 3
	nodeOpType    protowire.Number = 4
	nodeAttribute protowire.Number = 5
	nodeDomain    protowire.Number = 7

	attrName   protowire.Number = 1
	attrF      protowire.Number = 2
	attrI      protowire.Number = 3
	attrS      protowire.Number = 4
	attrT      protowire.Number = 5
	attrG      protowire.Number = 6
	attrFloats protowire.Number = 7
	attrInts   protowire.Number = 8
	attrGraphs protowire.Number = 11
	attrType   protowire.Number = 20

	tensorDims         protowire.Number = 1
	tensorDataType     protowire.Number = 2
	tensorName         protowire.Number = 8
	tensorRawData      protowire.Number = 9
	tensorExternalData protowire.Number = 13
	tensorDataLocation protowire.Number = 14

	valueInfoName protowire.Number = 1
	valueInfoType protowire.Number = 2

	typeTensorType protowire.Number = 1 // TypeProto.tensor_type

	tensorTypeElemType protowire.Number = 1
	tensorTypeShape    protowire.Number = 2

	shapeDim protowire.Number = 1

	dimValue protowire.Number = 1
	dimParam protowire.Number = 2

	entryKey   protowire.Number = 1 // StringStringEntryProto
	entryValue protowire.Number = 2

	dataLocationExternal = 1 // TensorProto.DataLocation EXTERNAL
)
