# Precompiled third-party headers. Qt's, QCustomPlot's and Eigen's headers are most of what the
# compiler reads: a core source file is ~190,000 lines once preprocessed, a view's ~340,000, and
# parsing them was most of each file's compile time. They change only with the system, so each
# target parses them once. The project's own headers are never precompiled: touching one must
# rebuild only the files that include it.
#
# rankscope_precompile(TARGET SET… [REUSE_FROM OTHER]) with the sets
#   QTCORE   the standard library and Qt Core headers every layer uses
#   EIGEN    Eigen/Core (targets that link Eigen); EIGEN_DENSE: all of Eigen's dense module
#   WIDGETS  Qt Widgets and QCustomPlot (views, the window)
#   QTEST    Qt Test (the test executables)
# REUSE_FROM uses OTHER's precompiled header, made with the same sets and compile options, instead
# of making another (each takes 10–30 s).
option(RANKSCOPE_PCH "Precompile the third-party headers (Qt, QCustomPlot, Eigen)" ON)

set(RANKSCOPE_PCH_QTCORE
    <algorithm> <cmath> <functional> <limits> <memory> <optional> <vector>
    <QByteArray> <QDir> <QFile> <QFileInfo> <QHash> <QJsonArray> <QJsonDocument> <QJsonObject>
    <QList> <QMap> <QObject> <QRegularExpression> <QSet> <QString> <QStringList> <QVariant>)
set(RANKSCOPE_PCH_EIGEN <Eigen/Core>)
set(RANKSCOPE_PCH_EIGEN_DENSE <Eigen/Dense>)
set(RANKSCOPE_PCH_WIDGETS
    <qcustomplot.h> <QApplication> <QCheckBox> <QComboBox> <QHBoxLayout> <QLabel> <QVBoxLayout>
    <QWidget>)
set(RANKSCOPE_PCH_QTEST <QTest> <QSignalSpy> <QTemporaryDir>)

function(rankscope_precompile target)
    cmake_parse_arguments(PARSE_ARGV 1 PCH "" "REUSE_FROM" "")
    if(NOT RANKSCOPE_PCH OR (NOT PCH_REUSE_FROM AND NOT PCH_UNPARSED_ARGUMENTS))
        return()
    endif()
    if(PCH_REUSE_FROM)
        target_precompile_headers(${target} REUSE_FROM ${PCH_REUSE_FROM})
    else()
        set(headers "")
        foreach(set IN LISTS PCH_UNPARSED_ARGUMENTS)
            list(APPEND headers ${RANKSCOPE_PCH_${set}})
        endforeach()
        target_precompile_headers(${target} PRIVATE ${headers})
    endif()
    # A precompiled header the compiler cannot use is silently parsed as text again; make that a
    # warning (an error under RANKSCOPE_WERROR), not a slow build nobody notices.
    target_compile_options(${target} PRIVATE -Winvalid-pch)
endfunction()
