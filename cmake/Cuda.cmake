# Optional CUDA, after ginkgo's autodetect_executors.cmake: MW_WITH_CUDA defaults to whether a
# CUDA compiler is found (PATH, CUDACXX, or the Debian/NVIDIA default /usr/local/cuda). The
# GPU backend of gpu/ is built only when it is ON; everything else, and the CPU comparator that
# gives the same answers, builds either way.
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX}
   AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(mw_cuda_found ON)
else()
  set(mw_cuda_found OFF)
endif()
option(MW_WITH_CUDA "Build the CUDA backend of the GPU comparator" ${mw_cuda_found})

if(MW_WITH_CUDA)
  # Explicit, not "native": developer and CI machines have nvcc but no GPU. 90 is Hopper (H100).
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "CUDA: enabled with ${CMAKE_CUDA_COMPILER} "
                 "(${CMAKE_CUDA_COMPILER_VERSION}, sm_${CMAKE_CUDA_ARCHITECTURES})")
else()
  message(STATUS "CUDA: no CUDA compiler found (or MW_WITH_CUDA=OFF); the GPU backend is "
                 "skipped and comparisons run on the CPU")
endif()
