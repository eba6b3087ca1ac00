// Many Qt Test suites in one executable: each tst_*.cpp ends with RANKSCOPE_TEST_MAIN (or the
// GUILESS or APPLESS form) instead of QTEST_MAIN, and registers itself under its file's name in
// lower case (tst_PowerLawFit.cpp: "tst_powerlawfit"), the name ctest runs it by:
//
//     rankscope_core_tests tst_powerlawfit [Qt Test options, e.g. -v2 or a test function]
//
// Linking some eighty executables, each with its own moc step, took a quarter of the build; one
// executable per layer links once. The suites are compiled eight to a translation unit (unity
// batches, cmake/UnityBatches.cmake), so each keeps its code in a namespace named after it
// (namespace tst_powerlawfit { … RANKSCOPE_TEST_MAIN(…) }, the moc include after it): its helpers
// may share names with another suite's. Each suite still runs alone in its own process, with the same
// application object QTEST_MAIN, QTEST_GUILESS_MAIN and QTEST_APPLESS_MAIN would give it.
#pragma once

#include <QTest>

namespace rankscope::test {

using SuiteMain = int (*)(int argc, char *argv[]);

// Registers `main` as the suite named after `sourceFile`; returns true (for a static initialiser).
bool registerSuite(const char *sourceFile, SuiteMain main);

} // namespace rankscope::test

// QTEST_MAIN_WRAPPER's body, as a registered function instead of main().
#define RANKSCOPE_TEST_SUITE_WRAPPER(TestObject, ...)                                                                                                \
    namespace {                                                                                                                                      \
    int runSuite(int argc, char *argv[])                                                                                                             \
    {                                                                                                                                                \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                                                                           \
        __VA_ARGS__                                                                                                                                  \
        TestObject tc;                                                                                                                               \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                                                   \
        return QTest::qExec(&tc, argc, argv);                                                                                                        \
    }                                                                                                                                                \
    [[maybe_unused]] const bool suiteRegistered = rankscope::test::registerSuite(__FILE__, runSuite);                                                \
    }

// QTEST_MAIN: QApplication where the executable links Qt Widgets, else QGuiApplication or
// QCoreApplication.
#define RANKSCOPE_TEST_MAIN(TestObject) RANKSCOPE_TEST_SUITE_WRAPPER(TestObject, QTEST_MAIN_SETUP())
// QTEST_GUILESS_MAIN: a QCoreApplication.
#define RANKSCOPE_TEST_GUILESS_MAIN(TestObject) RANKSCOPE_TEST_SUITE_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
// QTEST_APPLESS_MAIN: no application object.
#define RANKSCOPE_TEST_APPLESS_MAIN(TestObject) RANKSCOPE_TEST_SUITE_WRAPPER(TestObject)
