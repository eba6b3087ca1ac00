# Unity batches: a target's sources compiled eight to a translation unit. With the third-party
# headers precompiled, what each source still costs before its own code is the project's headers
# and every inline function and template it uses, compiled again in every file (in a test suite,
# half its time). A batch compiles them once. Measured on 2 cores: touching
# core/analysis/results/MatrixResult.h rebuilt in 226 s, now 164 s (docs/building.md).
#
# A batch is one translation unit, so names in anonymous namespaces must differ between the
# sources of a target: a helper two sources need belongs in a header, once. The test suites each
# keep their code in a namespace named after the suite (tests/TestSuite.h).
option(RANKSCOPE_UNITY "Compile each library's and test executable's sources in unity batches" ON)

function(rankscope_unity_batches target)
    if(RANKSCOPE_UNITY)
        set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
    endif()
endfunction()
