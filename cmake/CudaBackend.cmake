# RANKSCOPE_WITH_CUDA: AUTO builds the CUDA backend when a toolkit with cuBLAS and cuSOLVER is
# found, ON requires one, OFF leaves it out. Only the toolkit's headers are used at build time;
# libcudart, libcublas and libcusolver are opened at run time by the sonames of the toolkit built
# against (CudaLibraries), so nothing of CUDA is linked and the .deb depends on none of it.
set(RANKSCOPE_HAVE_CUDA OFF)
if(NOT RANKSCOPE_WITH_CUDA MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "RANKSCOPE_WITH_CUDA is AUTO, ON or OFF, not '${RANKSCOPE_WITH_CUDA}'")
endif()
if(RANKSCOPE_WITH_CUDA STREQUAL "OFF")
    message(STATUS "CUDA backend: not built (RANKSCOPE_WITH_CUDA=OFF)")
else()
    find_package(CUDAToolkit QUIET)
    set(rankscope_cuda_problem "")
    if(NOT CUDAToolkit_FOUND)
        set(rankscope_cuda_problem "no CUDA toolkit found")
    elseif(NOT TARGET CUDA::cublas OR NOT TARGET CUDA::cusolver OR NOT EXISTS "${CUDAToolkit_INCLUDE_DIRS}/cusolverDn.h")
        set(rankscope_cuda_problem "the CUDA toolkit in ${CUDAToolkit_LIBRARY_DIR} lacks cuBLAS or cuSOLVER")
    endif()
    # The soname each library is loaded by: the shortest libNAME.so.N beside the toolkit's library.
    foreach(library cudart cublas cusolver)
        file(GLOB candidates "${CUDAToolkit_LIBRARY_DIR}/lib${library}.so.*")
        set(soname "")
        foreach(candidate IN LISTS candidates)
            get_filename_component(name "${candidate}" NAME)
            string(LENGTH "${name}" length)
            string(LENGTH "${soname}" best)
            if(soname STREQUAL "" OR length LESS best)
                set(soname "${name}")
            endif()
        endforeach()
        string(TOUPPER ${library} upper)
        set(RANKSCOPE_${upper}_SONAME "${soname}")
        if(soname STREQUAL "" AND rankscope_cuda_problem STREQUAL "")
            set(rankscope_cuda_problem "no lib${library}.so.N in ${CUDAToolkit_LIBRARY_DIR}")
        endif()
    endforeach()
    if(rankscope_cuda_problem STREQUAL "")
        set(RANKSCOPE_HAVE_CUDA ON)
        message(STATUS "CUDA backend: built (CUDA ${CUDAToolkit_VERSION}; loads ${RANKSCOPE_CUDART_SONAME}, ${RANKSCOPE_CUBLAS_SONAME}, ${RANKSCOPE_CUSOLVER_SONAME} at run time)")
    elseif(RANKSCOPE_WITH_CUDA STREQUAL "ON")
        message(FATAL_ERROR "RANKSCOPE_WITH_CUDA=ON: ${rankscope_cuda_problem}")
    else()
        message(STATUS "CUDA backend: not built (${rankscope_cuda_problem})")
    endif()
endif()

# rankscope_add_cuda_backend(TARGET SOURCES…): the CUDA sources and the toolkit's headers (as
# system headers: their warnings are not ours) for TARGET, and RANKSCOPE_HAVE_CUDA=0/1 either way.
function(rankscope_add_cuda_backend target)
    if(NOT RANKSCOPE_HAVE_CUDA)
        target_compile_definitions(${target} PRIVATE RANKSCOPE_HAVE_CUDA=0)
        return()
    endif()
    target_sources(${target} PRIVATE ${ARGN})
    target_include_directories(${target} SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
    target_compile_definitions(${target} PRIVATE RANKSCOPE_HAVE_CUDA=1
        RANKSCOPE_CUDA_TOOLKIT_VERSION="${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}"
        RANKSCOPE_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}"
        RANKSCOPE_CUDART_SONAME="${RANKSCOPE_CUDART_SONAME}"
        RANKSCOPE_CUBLAS_SONAME="${RANKSCOPE_CUBLAS_SONAME}"
        RANKSCOPE_CUSOLVER_SONAME="${RANKSCOPE_CUSOLVER_SONAME}")
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
endfunction()
