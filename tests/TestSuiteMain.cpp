// main() of a test executable holding several suites (see TestSuite.h): runs the one named first.
#include "TestSuite.h"

#include <QByteArray>
#include <QFileInfo>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

std::map<std::string, rankscope::test::SuiteMain> &suites()
{
    static std::map<std::string, rankscope::test::SuiteMain> registered;
    return registered;
}

// "…/tests/core/spectral/tst_PowerLawFit.cpp" -> "tst_powerlawfit": the ctest name.
std::string suiteName(const char *sourceFile)
{
    return QFileInfo(QString::fromUtf8(sourceFile)).completeBaseName().toLower().toStdString();
}

} // namespace

bool rankscope::test::registerSuite(const char *sourceFile, SuiteMain main)
{
    const std::string name = suiteName(sourceFile);
    if (!suites().emplace(name, main).second) {
        std::fprintf(stderr, "two test suites are named %s\n", name.c_str());
        std::abort();
    }
    return true;
}

int main(int argc, char *argv[])
{
    const auto suite = argc > 1 ? suites().find(argv[1]) : suites().end();
    if (suite == suites().end()) {
        std::fprintf(stderr, "usage: %s SUITE [Qt Test options]\nsuites:\n", argc > 0 ? argv[0] : "tests");
        for (const auto &[name, main] : suites())
            std::fprintf(stderr, "  %s\n", name.c_str());
        return argc > 1 ? 1 : 0;
    }
    // The suite sees the executable's name and its own options, as its own executable did.
    std::vector<char *> args{argv[0]};
    args.insert(args.end(), argv + 2, argv + argc);
    args.push_back(nullptr);
    return suite->second(argc - 1, args.data());
}
