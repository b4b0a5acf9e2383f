/* Symbolic names of the status codes CUDA libraries return, so that gputrace
 * can name them without CUDA headers at build time. Tables are X-macros. */
#ifndef GPUTRACE_STATUS_NAMES_H
#define GPUTRACE_STATUS_NAMES_H

#include <stddef.h>

/* Every table is X(numeric value, "symbolic name"), in ascending order of
 * value with no value twice: the lookup is a binary search, and the unit tests
 * check the order. Where a header gives one value two names (deprecated
 * aliases), the table keeps the current name. */

/* cudaError_t, from CUDA 13.0 driver_types.h (cuda_runtime 13.0.96).
 * 10000 is cudaErrorApiFailureBase, deprecated since CUDA 4.1 but still in
 * the enum; values above it (base + driver error) are left unnamed. */
#define GT_CUDART_STATUSES(X)                                                  \
	X(0, "cudaSuccess")                                                    \
	X(1, "cudaErrorInvalidValue")                                          \
	X(2, "cudaErrorMemoryAllocation")                                      \
	X(3, "cudaErrorInitializationError")                                   \
	X(4, "cudaErrorCudartUnloading")                                       \
	X(5, "cudaErrorProfilerDisabled")                                      \
	X(6, "cudaErrorProfilerNotInitialized")                                \
	X(7, "cudaErrorProfilerAlreadyStarted")                                \
	X(8, "cudaErrorProfilerAlreadyStopped")                                \
	X(9, "cudaErrorInvalidConfiguration")                                  \
	X(12, "cudaErrorInvalidPitchValue")                                    \
	X(13, "cudaErrorInvalidSymbol")                                        \
	X(16, "cudaErrorInvalidHostPointer")                                   \
	X(17, "cudaErrorInvalidDevicePointer")                                 \
	X(18, "cudaErrorInvalidTexture")                                       \
	X(19, "cudaErrorInvalidTextureBinding")                                \
	X(20, "cudaErrorInvalidChannelDescriptor")                             \
	X(21, "cudaErrorInvalidMemcpyDirection")                               \
	X(22, "cudaErrorAddressOfConstant")                                    \
	X(23, "cudaErrorTextureFetchFailed")                                   \
	X(24, "cudaErrorTextureNotBound")                                      \
	X(25, "cudaErrorSynchronizationError")                                 \
	X(26, "cudaErrorInvalidFilterSetting")                                 \
	X(27, "cudaErrorInvalidNormSetting")                                   \
	X(28, "cudaErrorMixedDeviceExecution")                                 \
	X(31, "cudaErrorNotYetImplemented")                                    \
	X(32, "cudaErrorMemoryValueTooLarge")                                  \
	X(34, "cudaErrorStubLibrary")                                          \
	X(35, "cudaErrorInsufficientDriver")                                   \
	X(36, "cudaErrorCallRequiresNewerDriver")                              \
	X(37, "cudaErrorInvalidSurface")                                       \
	X(43, "cudaErrorDuplicateVariableName")                                \
	X(44, "cudaErrorDuplicateTextureName")                                 \
	X(45, "cudaErrorDuplicateSurfaceName")                                 \
	X(46, "cudaErrorDevicesUnavailable")                                   \
	X(49, "cudaErrorIncompatibleDriverContext")                            \
	X(52, "cudaErrorMissingConfiguration")                                 \
	X(53, "cudaErrorPriorLaunchFailure")                                   \
	X(65, "cudaErrorLaunchMaxDepthExceeded")                               \
	X(66, "cudaErrorLaunchFileScopedTex")                                  \
	X(67, "cudaErrorLaunchFileScopedSurf")                                 \
	X(68, "cudaErrorSyncDepthExceeded")                                    \
	X(69, "cudaErrorLaunchPendingCountExceeded")                           \
	X(98, "cudaErrorInvalidDeviceFunction")                                \
	X(100, "cudaErrorNoDevice")                                            \
	X(101, "cudaErrorInvalidDevice")                                       \
	X(102, "cudaErrorDeviceNotLicensed")                                   \
	X(103, "cudaErrorSoftwareValidityNotEstablished")                      \
	X(127, "cudaErrorStartupFailure")                                      \
	X(200, "cudaErrorInvalidKernelImage")                                  \
	X(201, "cudaErrorDeviceUninitialized")                                 \
	X(205, "cudaErrorMapBufferObjectFailed")                               \
	X(206, "cudaErrorUnmapBufferObjectFailed")                             \
	X(207, "cudaErrorArrayIsMapped")                                       \
	X(208, "cudaErrorAlreadyMapped")                                       \
	X(209, "cudaErrorNoKernelImageForDevice")                              \
	X(210, "cudaErrorAlreadyAcquired")                                     \
	X(211, "cudaErrorNotMapped")                                           \
	X(212, "cudaErrorNotMappedAsArray")                                    \
	X(213, "cudaErrorNotMappedAsPointer")                                  \
	X(214, "cudaErrorECCUncorrectable")                                    \
	X(215, "cudaErrorUnsupportedLimit")                                    \
	X(216, "cudaErrorDeviceAlreadyInUse")                                  \
	X(217, "cudaErrorPeerAccessUnsupported")                               \
	X(218, "cudaErrorInvalidPtx")                                          \
	X(219, "cudaErrorInvalidGraphicsContext")                              \
	X(220, "cudaErrorNvlinkUncorrectable")                                 \
	X(221, "cudaErrorJitCompilerNotFound")                                 \
	X(222, "cudaErrorUnsupportedPtxVersion")                               \
	X(223, "cudaErrorJitCompilationDisabled")                              \
	X(224, "cudaErrorUnsupportedExecAffinity")                             \
	X(225, "cudaErrorUnsupportedDevSideSync")                              \
	X(226, "cudaErrorContained")                                           \
	X(300, "cudaErrorInvalidSource")                                       \
	X(301, "cudaErrorFileNotFound")                                        \
	X(302, "cudaErrorSharedObjectSymbolNotFound")                          \
	X(303, "cudaErrorSharedObjectInitFailed")                              \
	X(304, "cudaErrorOperatingSystem")                                     \
	X(400, "cudaErrorInvalidResourceHandle")                               \
	X(401, "cudaErrorIllegalState")                                        \
	X(402, "cudaErrorLossyQuery")                                          \
	X(500, "cudaErrorSymbolNotFound")                                      \
	X(600, "cudaErrorNotReady")                                            \
	X(700, "cudaErrorIllegalAddress")                                      \
	X(701, "cudaErrorLaunchOutOfResources")                                \
	X(702, "cudaErrorLaunchTimeout")                                       \
	X(703, "cudaErrorLaunchIncompatibleTexturing")                         \
	X(704, "cudaErrorPeerAccessAlreadyEnabled")                            \
	X(705, "cudaErrorPeerAccessNotEnabled")                                \
	X(708, "cudaErrorSetOnActiveProcess")                                  \
	X(709, "cudaErrorContextIsDestroyed")                                  \
	X(710, "cudaErrorAssert")                                              \
	X(711, "cudaErrorTooManyPeers")                                        \
	X(712, "cudaErrorHostMemoryAlreadyRegistered")                         \
	X(713, "cudaErrorHostMemoryNotRegistered")                             \
	X(714, "cudaErrorHardwareStackError")                                  \
	X(715, "cudaErrorIllegalInstruction")                                  \
	X(716, "cudaErrorMisalignedAddress")                                   \
	X(717, "cudaErrorInvalidAddressSpace")                                 \
	X(718, "cudaErrorInvalidPc")                                           \
	X(719, "cudaErrorLaunchFailure")                                       \
	X(720, "cudaErrorCooperativeLaunchTooLarge")                           \
	X(721, "cudaErrorTensorMemoryLeak")                                    \
	X(800, "cudaErrorNotPermitted")                                        \
	X(801, "cudaErrorNotSupported")                                        \
	X(802, "cudaErrorSystemNotReady")                                      \
	X(803, "cudaErrorSystemDriverMismatch")                                \
	X(804, "cudaErrorCompatNotSupportedOnDevice")                          \
	X(805, "cudaErrorMpsConnectionFailed")                                 \
	X(806, "cudaErrorMpsRpcFailure")                                       \
	X(807, "cudaErrorMpsServerNotReady")                                   \
	X(808, "cudaErrorMpsMaxClientsReached")                                \
	X(809, "cudaErrorMpsMaxConnectionsReached")                            \
	X(810, "cudaErrorMpsClientTerminated")                                 \
	X(811, "cudaErrorCdpNotSupported")                                     \
	X(812, "cudaErrorCdpVersionMismatch")                                  \
	X(900, "cudaErrorStreamCaptureUnsupported")                            \
	X(901, "cudaErrorStreamCaptureInvalidated")                            \
	X(902, "cudaErrorStreamCaptureMerge")                                  \
	X(903, "cudaErrorStreamCaptureUnmatched")                              \
	X(904, "cudaErrorStreamCaptureUnjoined")                               \
	X(905, "cudaErrorStreamCaptureIsolation")                              \
	X(906, "cudaErrorStreamCaptureImplicit")                               \
	X(907, "cudaErrorCapturedEvent")                                       \
	X(908, "cudaErrorStreamCaptureWrongThread")                            \
	X(909, "cudaErrorTimeout")                                             \
	X(910, "cudaErrorGraphExecUpdateFailure")                              \
	X(911, "cudaErrorExternalDevice")                                      \
	X(912, "cudaErrorInvalidClusterSize")                                  \
	X(913, "cudaErrorFunctionNotLoaded")                                   \
	X(914, "cudaErrorInvalidResourceType")                                 \
	X(915, "cudaErrorInvalidResourceConfiguration")                        \
	X(999, "cudaErrorUnknown")                                             \
	X(10000, "cudaErrorApiFailureBase")


/* CUresult, from CUDA 13.0 cuda.h (CUDA_VERSION 13000). The driver API has no
 * 35: "insufficient driver" exists only as cudaErrorInsufficientDriver. */
#define GT_CU_STATUSES(X)                                                      \
	X(0, "CUDA_SUCCESS")                                                   \
	X(1, "CUDA_ERROR_INVALID_VALUE")                                       \
	X(2, "CUDA_ERROR_OUT_OF_MEMORY")                                       \
	X(3, "CUDA_ERROR_NOT_INITIALIZED")                                     \
	X(4, "CUDA_ERROR_DEINITIALIZED")                                       \
	X(5, "CUDA_ERROR_PROFILER_DISABLED")                                   \
	X(6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED")                            \
	X(7, "CUDA_ERROR_PROFILER_ALREADY_STARTED")                            \
	X(8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED")                            \
	X(34, "CUDA_ERROR_STUB_LIBRARY")                                       \
	X(36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER")                         \
	X(46, "CUDA_ERROR_DEVICE_UNAVAILABLE")                                 \
	X(100, "CUDA_ERROR_NO_DEVICE")                                         \
	X(101, "CUDA_ERROR_INVALID_DEVICE")                                    \
	X(102, "CUDA_ERROR_DEVICE_NOT_LICENSED")                               \
	X(200, "CUDA_ERROR_INVALID_IMAGE")                                     \
	X(201, "CUDA_ERROR_INVALID_CONTEXT")                                   \
	X(202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT")                           \
	X(205, "CUDA_ERROR_MAP_FAILED")                                        \
	X(206, "CUDA_ERROR_UNMAP_FAILED")                                      \
	X(207, "CUDA_ERROR_ARRAY_IS_MAPPED")                                   \
	X(208, "CUDA_ERROR_ALREADY_MAPPED")                                    \
	X(209, "CUDA_ERROR_NO_BINARY_FOR_GPU")                                 \
	X(210, "CUDA_ERROR_ALREADY_ACQUIRED")                                  \
	X(211, "CUDA_ERROR_NOT_MAPPED")                                        \
	X(212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY")                               \
	X(213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER")                             \
	X(214, "CUDA_ERROR_ECC_UNCORRECTABLE")                                 \
	X(215, "CUDA_ERROR_UNSUPPORTED_LIMIT")                                 \
	X(216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE")                            \
	X(217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED")                           \
	X(218, "CUDA_ERROR_INVALID_PTX")                                       \
	X(219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT")                          \
	X(220, "CUDA_ERROR_NVLINK_UNCORRECTABLE")                              \
	X(221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND")                            \
	X(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION")                           \
	X(223, "CUDA_ERROR_JIT_COMPILATION_DISABLED")                          \
	X(224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY")                         \
	X(225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC")                          \
	X(226, "CUDA_ERROR_CONTAINED")                                         \
	X(300, "CUDA_ERROR_INVALID_SOURCE")                                    \
	X(301, "CUDA_ERROR_FILE_NOT_FOUND")                                    \
	X(302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND")                    \
	X(303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED")                         \
	X(304, "CUDA_ERROR_OPERATING_SYSTEM")                                  \
	X(400, "CUDA_ERROR_INVALID_HANDLE")                                    \
	X(401, "CUDA_ERROR_ILLEGAL_STATE")                                     \
	X(402, "CUDA_ERROR_LOSSY_QUERY")                                       \
	X(500, "CUDA_ERROR_NOT_FOUND")                                         \
	X(600, "CUDA_ERROR_NOT_READY")                                         \
	X(700, "CUDA_ERROR_ILLEGAL_ADDRESS")                                   \
	X(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")                           \
	X(702, "CUDA_ERROR_LAUNCH_TIMEOUT")                                    \
	X(703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING")                     \
	X(704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED")                       \
	X(705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED")                           \
	X(708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE")                            \
	X(709, "CUDA_ERROR_CONTEXT_IS_DESTROYED")                              \
	X(710, "CUDA_ERROR_ASSERT")                                            \
	X(711, "CUDA_ERROR_TOO_MANY_PEERS")                                    \
	X(712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED")                    \
	X(713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED")                        \
	X(714, "CUDA_ERROR_HARDWARE_STACK_ERROR")                              \
	X(715, "CUDA_ERROR_ILLEGAL_INSTRUCTION")                               \
	X(716, "CUDA_ERROR_MISALIGNED_ADDRESS")                                \
	X(717, "CUDA_ERROR_INVALID_ADDRESS_SPACE")                             \
	X(718, "CUDA_ERROR_INVALID_PC")                                        \
	X(719, "CUDA_ERROR_LAUNCH_FAILED")                                     \
	X(720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE")                      \
	X(721, "CUDA_ERROR_TENSOR_MEMORY_LEAK")                                \
	X(800, "CUDA_ERROR_NOT_PERMITTED")                                     \
	X(801, "CUDA_ERROR_NOT_SUPPORTED")                                     \
	X(802, "CUDA_ERROR_SYSTEM_NOT_READY")                                  \
	X(803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")                            \
	X(804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE")                    \
	X(805, "CUDA_ERROR_MPS_CONNECTION_FAILED")                             \
	X(806, "CUDA_ERROR_MPS_RPC_FAILURE")                                   \
	X(807, "CUDA_ERROR_MPS_SERVER_NOT_READY")                              \
	X(808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED")                           \
	X(809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED")                       \
	X(810, "CUDA_ERROR_MPS_CLIENT_TERMINATED")                             \
	X(811, "CUDA_ERROR_CDP_NOT_SUPPORTED")                                 \
	X(812, "CUDA_ERROR_CDP_VERSION_MISMATCH")                              \
	X(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")                        \
	X(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED")                        \
	X(902, "CUDA_ERROR_STREAM_CAPTURE_MERGE")                              \
	X(903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED")                          \
	X(904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED")                           \
	X(905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION")                          \
	X(906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT")                           \
	X(907, "CUDA_ERROR_CAPTURED_EVENT")                                    \
	X(908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD")                       \
	X(909, "CUDA_ERROR_TIMEOUT")                                           \
	X(910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE")                         \
	X(911, "CUDA_ERROR_EXTERNAL_DEVICE")                                   \
	X(912, "CUDA_ERROR_INVALID_CLUSTER_SIZE")                              \
	X(913, "CUDA_ERROR_FUNCTION_NOT_LOADED")                               \
	X(914, "CUDA_ERROR_INVALID_RESOURCE_TYPE")                             \
	X(915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION")                    \
	X(916, "CUDA_ERROR_KEY_ROTATION")                                      \
	X(999, "CUDA_ERROR_UNKNOWN")


/* cudnnStatus_t as cuDNN 9 numbers it, from cuDNN 9.19.0 cudnn_graph.h: a
 * category (1000 generic, 2000 bad param, 3000 not supported, 4000 internal,
 * 5000 execution) plus a specific error. The deprecated 8.x names are aliases
 * of codes listed here, except CUDNN_STATUS_INVALID_VALUE, which has 2001. */
#define GT_CUDNN9_STATUSES(X)                                                  \
	X(0, "CUDNN_STATUS_SUCCESS")                                           \
	X(1001, "CUDNN_STATUS_NOT_INITIALIZED")                                \
	X(1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH")                    \
	X(1003, "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH")                 \
	X(1004, "CUDNN_STATUS_DEPRECATED")                                     \
	X(1005, "CUDNN_STATUS_LICENSE_ERROR")                                  \
	X(1006, "CUDNN_STATUS_RUNTIME_IN_PROGRESS")                            \
	X(1007, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW")                            \
	X(1008, "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED")                      \
	X(2000, "CUDNN_STATUS_BAD_PARAM")                                      \
	X(2001, "CUDNN_STATUS_INVALID_VALUE")                                  \
	X(2002, "CUDNN_STATUS_BAD_PARAM_NULL_POINTER")                         \
	X(2003, "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER")                   \
	X(2004, "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED")                        \
	X(2005, "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND")                         \
	X(2006, "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT")                    \
	X(2007, "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH")                      \
	X(2008, "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH")                       \
	X(2009, "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES")                   \
	X(2010, "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE")                       \
	X(2011, "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH")                  \
	X(2012, "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE")                      \
	X(3000, "CUDNN_STATUS_NOT_SUPPORTED")                                  \
	X(3001, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN")                    \
	X(3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE")                            \
	X(3003, "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE")                        \
	X(3004, "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT")                           \
	X(3005, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER")         \
	X(3006, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART")              \
	X(3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH")                    \
	X(3008, "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING")     \
	X(3009, "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE")           \
	X(3010, "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT")       \
	X(3011, "CUDNN_STATUS_NOT_SUPPORTED_PADDING")                          \
	X(3012, "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM")                 \
	X(3013, "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API")            \
	X(3014, "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE")            \
	X(4000, "CUDNN_STATUS_INTERNAL_ERROR")                                 \
	X(4001, "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED")              \
	X(4002, "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE")                \
	X(4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED")          \
	X(4004, "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED")        \
	X(4005, "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM")                \
	X(4006, "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED")         \
	X(5000, "CUDNN_STATUS_EXECUTION_FAILED")                               \
	X(5001, "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER")                   \
	X(5002, "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS")                        \
	X(5003, "CUDNN_STATUS_EXECUTION_FAILED_CUDART")                        \
	X(5004, "CUDNN_STATUS_EXECUTION_FAILED_CURAND")


/* cudnnStatus_t as cuDNN 8 (and 7, a prefix of it) numbers it, from cuDNN
 * 8.9.1 cudnn_ops_infer.h: NVIDIA's header, not installed here, read from a
 * copy in github.com/xiaohaoo/Yolo_TensorRT (include/cudnn_ops_infer.h);
 * other cuDNN 8 bindings (cudarc on docs.rs) list the same 15 in this order. */
#define GT_CUDNN8_STATUSES(X)                                                  \
	X(0, "CUDNN_STATUS_SUCCESS")                                           \
	X(1, "CUDNN_STATUS_NOT_INITIALIZED")                                   \
	X(2, "CUDNN_STATUS_ALLOC_FAILED")                                      \
	X(3, "CUDNN_STATUS_BAD_PARAM")                                         \
	X(4, "CUDNN_STATUS_INTERNAL_ERROR")                                    \
	X(5, "CUDNN_STATUS_INVALID_VALUE")                                     \
	X(6, "CUDNN_STATUS_ARCH_MISMATCH")                                     \
	X(7, "CUDNN_STATUS_MAPPING_ERROR")                                     \
	X(8, "CUDNN_STATUS_EXECUTION_FAILED")                                  \
	X(9, "CUDNN_STATUS_NOT_SUPPORTED")                                     \
	X(10, "CUDNN_STATUS_LICENSE_ERROR")                                    \
	X(11, "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING")                     \
	X(12, "CUDNN_STATUS_RUNTIME_IN_PROGRESS")                              \
	X(13, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW")                              \
	X(14, "CUDNN_STATUS_VERSION_MISMATCH")


/* cublasStatus_t, from cuBLAS 13.1.0 cublas_api.h (shipped with CUDA 13.0).
 * The gaps (2, 4-6, 9, 10, 12) are values cuBLAS never used. */
#define GT_CUBLAS_STATUSES(X)                                                  \
	X(0, "CUBLAS_STATUS_SUCCESS")                                          \
	X(1, "CUBLAS_STATUS_NOT_INITIALIZED")                                  \
	X(3, "CUBLAS_STATUS_ALLOC_FAILED")                                     \
	X(7, "CUBLAS_STATUS_INVALID_VALUE")                                    \
	X(8, "CUBLAS_STATUS_ARCH_MISMATCH")                                    \
	X(11, "CUBLAS_STATUS_MAPPING_ERROR")                                   \
	X(13, "CUBLAS_STATUS_EXECUTION_FAILED")                                \
	X(14, "CUBLAS_STATUS_INTERNAL_ERROR")                                  \
	X(15, "CUBLAS_STATUS_NOT_SUPPORTED")                                   \
	X(16, "CUBLAS_STATUS_LICENSE_ERROR")


/* ncclResult_t, from NCCL 2.28.9 nccl.h. ncclNumResults (8) counts the codes
 * and is no status, so it is left out. */
#define GT_NCCL_STATUSES(X)                                                    \
	X(0, "ncclSuccess")                                                    \
	X(1, "ncclUnhandledCudaError")                                         \
	X(2, "ncclSystemError")                                                \
	X(3, "ncclInternalError")                                              \
	X(4, "ncclInvalidArgument")                                            \
	X(5, "ncclInvalidUsage")                                               \
	X(6, "ncclRemoteError")                                                \
	X(7, "ncclInProgress")


/* Which table a code is looked up in. The two cuDNN numberings differ: ask
 * gt_cudnn_api_for_version() which one a loaded cuDNN uses. */
enum gt_status_api {
	GT_API_CUDART,
	GT_API_CU,
	GT_API_CUDNN9,
	GT_API_CUDNN8,
	GT_API_CUBLAS,
	GT_API_NCCL,
	GT_API_COUNT
};

struct gt_status {
	long code;
	const char *name;
};

/* The symbolic name of `code` in `api`'s table, or NULL when it has none. */
const char *gt_status_name(enum gt_status_api api, long code);

/* The status numbering of a cuDNN whose cudnnGetVersion() is `cudnn_version`
 * (8907 is 8.9.7, 91900 is 9.19.0): GT_API_CUDNN8 up to major 8, else
 * GT_API_CUDNN9. 0 or less (version unknown) gives GT_API_CUDNN9. */
enum gt_status_api gt_cudnn_api_for_version(long cudnn_version);

/* The whole table of `api` and its length in *n; NULL and 0 for no such api.
 * For tests and for listing codes. */
const struct gt_status *gt_status_table(enum gt_status_api api, size_t *n);

#endif
