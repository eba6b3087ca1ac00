// One table of the results file (/checkpoints, /matrices, …) as a list of column descriptors: each
// column's dataset, its HDF5 type, how a row gives and takes its value, whether a file may lack
// it, and the schema versions that hold it. The one list gathers rows into columns, writes them
// and reads them back, so that a column is added, or made optional, in one place.
#pragma once

#include "io/hdf5/Hdf5Support.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QStringList>
#include <functional>
#include <optional>
#include <variant>
#include <vector>

namespace rankscope {

// How a column is stored: UTF-8 strings, int32, int64, float64, or float32 stored chunked,
// byte-shuffled and deflated where this HDF5 has zlib (singular vectors, the one large float32).
enum class ColumnType { Text, Int32, Int64, Float64, Float32 };

// What a file of a schema that holds the column may do without it.
enum class Presence {
    Required,  // missing or unusable: the table is incomplete, the file damaged
    Optional,  // missing or unusable: every row keeps its default (added without a schema change)
    IfPresent, // missing: every row keeps its default; present but unusable: the table is incomplete
};

// One value of a row, as a column gives or takes it: a text, an integer, or a number.
using Cell = std::variant<QString, qint64, double>;

inline QString cellText(const Cell &c) { return std::get<QString>(c); }
inline qint64 cellInteger(const Cell &c) { return std::get<qint64>(c); }
inline double cellNumber(const Cell &c) { return std::get<double>(c); }

template <typename Row>
struct Column {
    QByteArray name;
    ColumnType type = ColumnType::Text;
    Presence presence = Presence::Required;
    int since = 1; // the schema version that added it: a file of an older one is read without it
    int until = 0; // the first schema version without it (0: every one since): it is read, never written
    std::function<Cell(const Row &)> get;
    std::function<void(Row &, const Cell &)> set;

    bool inSchema(int version) const { return version >= since && (until == 0 || version < until); }
};

template <typename Row>
struct TableSpec {
    const char *group;        // "/" for the file's root
    const char *lengthColumn; // the column whose length is the table's
    std::vector<Column<Row>> columns;
};

// The first dataset of a results file found unusable and why: what the user is told it is damaged by.
struct TableProblems {
    QString first;
    void note(const char *name, const QString &what)
    {
        if (first.isEmpty())
            first = QStringLiteral("%1 %2").arg(QLatin1String(name), what);
    }
    QString suffix() const { return first.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(first); }
};

// One column's values as its dataset holds them: only the vector of its type is used.
struct ColumnValues {
    QStringList text;
    std::vector<int> int32;
    std::vector<long long> int64;
    std::vector<double> float64;
    std::vector<float> float32;

    void append(ColumnType type, const Cell &value);
    Cell at(ColumnType type, qsizetype i) const;
};

// The datasets themselves, each checked before anything is allocated for it.
class ResultsDatasets {
public:
    static bool write(hid_t group, const char *name, ColumnType type, const ColumnValues &values);
    // The values of a 1-D dataset of `expected` entries (any number when expected < 0) of the type,
    // stored in the file itself and fitting in memory; nullopt, with the problem noted, otherwise.
    static std::optional<ColumnValues> read(hid_t group, const char *name, ColumnType type, qint64 expected, TableProblems &problems);
    // The length of a 1-D dataset, or -1 when it is missing or not 1-D.
    static qint64 length(hid_t group, const char *name);
    // Whether `rows` rows of `rowBytes` each fit in the memory available.
    static bool fitsInMemory(qint64 rows, size_t rowBytes);
};

// Why a table could not be read: its group is missing, its length column is, or a column it
// needs is missing or unusable (TableProblems says which first).
enum class TableFailure { None, NoGroup, NoLength, Incomplete };

template <typename Row>
struct TableRows {
    QList<Row> rows;
    TableFailure failure = TableFailure::None;
    QSet<QByteArray> present; // the columns the file held and that were read
};

// Opens a table's group for reading ("/": the root), or creates it for writing.
Hdf5Id openTableGroup(hid_t file, const char *group);
Hdf5Id createTableGroup(hid_t file, const char *group);

// Every column the schema `version` holds, gathered from the rows and written.
template <typename Row>
bool writeTable(hid_t file, const TableSpec<Row> &spec, const QList<Row> &rows, int version)
{
    const Hdf5Id group = createTableGroup(file, spec.group);
    if (!group.ok())
        return false;
    for (const Column<Row> &column : spec.columns) {
        if (!column.inSchema(version))
            continue;
        ColumnValues values;
        for (const Row &row : rows)
            values.append(column.type, column.get(row));
        if (!ResultsDatasets::write(group, column.name.constData(), column.type, values))
            return false;
    }
    return true;
}

// The rows a file of schema `version` holds: each starts as `blank`, and each column that version
// holds and the file has sets its value in every row. Columns of other versions, and optional
// ones the file lacks, leave the rows' defaults.
template <typename Row>
TableRows<Row> readTable(hid_t file, const TableSpec<Row> &spec, int version, TableProblems &problems, const Row &blank = Row())
{
    TableRows<Row> table;
    const Hdf5Id group = openTableGroup(file, spec.group);
    const qint64 length = group.ok() ? ResultsDatasets::length(group, spec.lengthColumn) : -1;
    if (!group.ok() || length < 0) {
        if (!group.ok())
            problems.note(spec.lengthColumn, QStringLiteral("is missing"));
        for (const Column<Row> &column : spec.columns)
            if (group.ok() && column.name == spec.lengthColumn) // says why it has no length
                ResultsDatasets::read(group, spec.lengthColumn, column.type, -1, problems);
        table.failure = group.ok() ? TableFailure::NoLength : TableFailure::NoGroup;
        return table;
    }
    if (!ResultsDatasets::fitsInMemory(length, sizeof(Row))) {
        problems.note(spec.lengthColumn, QStringLiteral("holds %1 entries, more than the memory available").arg(length));
        table.failure = TableFailure::Incomplete;
        return table;
    }
    table.rows = QList<Row>(length, blank);
    for (const Column<Row> &column : spec.columns) {
        if (!column.inSchema(version))
            continue;
        const char *name = column.name.constData();
        if (column.presence == Presence::IfPresent && H5Lexists(group, name, H5P_DEFAULT) <= 0)
            continue;
        TableProblems ignored;
        const auto values = ResultsDatasets::read(group, name, column.type, length, column.presence == Presence::Optional ? ignored : problems);
        if (!values && column.presence != Presence::Optional) {
            table.failure = TableFailure::Incomplete;
            return table;
        }
        if (!values)
            continue;
        for (qsizetype i = 0; i < length; ++i)
            column.set(table.rows[i], values->at(column.type, i));
        table.present.insert(column.name);
    }
    return table;
}

} // namespace rankscope
