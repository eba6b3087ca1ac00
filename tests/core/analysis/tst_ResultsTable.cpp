// A results table's column descriptor list drives all three directions: the columns it lists are
// gathered and written with their types, and read back; an optional column a file lacks reads as
// its default, a required one is named as missing; columns of other schemas are left alone.
#include "analysis/results/ResultsTable.h"
#include "TestSuite.h"

#include <QTemporaryDir>
#include <hdf5.h>

namespace tst_resultstable {

using namespace rankscope;

namespace {

struct Toy {
    QString name;
    qint64 size = 0;
    int flag = 0;
    double value = 0;
    QString extra = QStringLiteral("default");
};

Column<Toy> nameColumn()
{
    return {"name", ColumnType::Text, Presence::Required, 1, 0, [](const Toy &t) { return Cell(t.name); },
            [](Toy &t, const Cell &c) { t.name = cellText(c); }};
}

Column<Toy> sizeColumn()
{
    return {"size", ColumnType::Int64, Presence::Required, 1, 0, [](const Toy &t) { return Cell(t.size); },
            [](Toy &t, const Cell &c) { t.size = cellInteger(c); }};
}

Column<Toy> flagColumn()
{
    return {"flag", ColumnType::Int32, Presence::Required, 1, 0, [](const Toy &t) { return Cell(qint64(t.flag)); },
            [](Toy &t, const Cell &c) { t.flag = int(cellInteger(c)); }};
}

Column<Toy> valueColumn()
{
    return {"value", ColumnType::Float64, Presence::Required, 1, 0, [](const Toy &t) { return Cell(t.value); },
            [](Toy &t, const Cell &c) { t.value = cellNumber(c); }};
}

Column<Toy> extraColumn(Presence presence, int since = 1, int until = 0)
{
    return {"extra", ColumnType::Text, presence, since, until, [](const Toy &t) { return Cell(t.extra); },
            [](Toy &t, const Cell &c) { t.extra = cellText(c); }};
}

TableSpec<Toy> baseSpec()
{
    return {"toys", "name", {nameColumn(), sizeColumn(), flagColumn(), valueColumn()}};
}

QList<Toy> someToys()
{
    return {{"a", 1, 0, 0.5, "x"}, {"bb", 1LL << 40, 1, -2.25, "y"}, {"", -3, 7, 1e300, ""}};
}

// An HDF5 file of its own for each write, opened again for reading.
class ToyFile {
public:
    explicit ToyFile(const QString &path) : m_path(path.toLocal8Bit()) {}
    template <typename F>
    void write(F &&body)
    {
        Hdf5Lock lock;
        Hdf5Id file(H5Fcreate(m_path.constData(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
        QVERIFY(file.ok());
        body(hid_t(file));
    }
    template <typename F>
    void read(F &&body)
    {
        Hdf5Lock lock;
        Hdf5Id file(H5Fopen(m_path.constData(), H5F_ACC_RDWR, H5P_DEFAULT));
        QVERIFY(file.ok());
        body(hid_t(file));
    }

private:
    QByteArray m_path;
};

H5T_class_t datasetClass(hid_t file, const char *path)
{
    Hdf5Id data(H5Dopen2(file, path, H5P_DEFAULT));
    Hdf5Id type(data.ok() ? H5Dget_type(data) : -1);
    return type.ok() ? H5Tget_class(type) : H5T_NO_CLASS;
}

size_t datasetSize(hid_t file, const char *path)
{
    Hdf5Id data(H5Dopen2(file, path, H5P_DEFAULT));
    Hdf5Id type(data.ok() ? H5Dget_type(data) : -1);
    return type.ok() ? H5Tget_size(type) : 0;
}

} // namespace

class TestResultsTable : public QObject {
    Q_OBJECT
private slots:
    // What the list names is written with its type and read back as it was; a column added to the
    // list is written and read with no other change.
    void theListDrivesWriteAndRead()
    {
        QTemporaryDir dir;
        ToyFile file(dir.filePath("toys.h5"));
        const QList<Toy> toys = someToys();
        file.write([&](hid_t f) { QVERIFY(writeTable(f, baseSpec(), toys, 1)); });
        file.read([&](hid_t f) {
            QCOMPARE(datasetClass(f, "toys/name"), H5T_STRING);
            QCOMPARE(datasetClass(f, "toys/size"), H5T_INTEGER);
            QCOMPARE(datasetSize(f, "toys/size"), size_t(8));
            QCOMPARE(datasetSize(f, "toys/flag"), size_t(4));
            QCOMPARE(datasetClass(f, "toys/value"), H5T_FLOAT);
            QCOMPARE(H5Lexists(f, "toys/extra", H5P_DEFAULT), 0);
            TableProblems problems;
            const TableRows<Toy> read = readTable(f, baseSpec(), 1, problems);
            QCOMPARE(read.failure, TableFailure::None);
            QCOMPARE(read.rows.size(), toys.size());
            for (qsizetype i = 0; i < toys.size(); ++i) {
                QCOMPARE(read.rows[i].name, toys[i].name);
                QCOMPARE(read.rows[i].size, toys[i].size);
                QCOMPARE(read.rows[i].flag, toys[i].flag);
                QCOMPARE(read.rows[i].value, toys[i].value);
                QCOMPARE(read.rows[i].extra, QStringLiteral("default")); // not in the list: not read
            }
        });

        TableSpec<Toy> withExtra = baseSpec();
        withExtra.columns.push_back(extraColumn(Presence::Required));
        file.write([&](hid_t f) { QVERIFY(writeTable(f, withExtra, toys, 1)); });
        file.read([&](hid_t f) {
            QCOMPARE(datasetClass(f, "toys/extra"), H5T_STRING);
            TableProblems problems;
            const TableRows<Toy> read = readTable(f, withExtra, 1, problems);
            QCOMPARE(read.failure, TableFailure::None);
            QVERIFY(read.present.contains("extra"));
            for (qsizetype i = 0; i < toys.size(); ++i)
                QCOMPARE(read.rows[i].extra, toys[i].extra);
        });
    }

    // An optional column a file lacks, or holds unusable, reads as the row's default; a required
    // one makes the table incomplete, named as what is missing.
    void missingColumnsReadAsDefaultsOrAreNamed()
    {
        QTemporaryDir dir;
        ToyFile file(dir.filePath("toys.h5"));
        file.write([&](hid_t f) { QVERIFY(writeTable(f, baseSpec(), someToys(), 1)); });
        TableSpec<Toy> optional = baseSpec(), required = baseSpec();
        optional.columns.push_back(extraColumn(Presence::Optional));
        required.columns.push_back(extraColumn(Presence::Required));
        file.read([&](hid_t f) {
            TableProblems problems;
            const TableRows<Toy> read = readTable(f, optional, 1, problems);
            QCOMPARE(read.failure, TableFailure::None);
            QVERIFY(problems.first.isEmpty());
            QVERIFY(!read.present.contains("extra"));
            QCOMPARE(read.rows.size(), 3);
            for (const Toy &t : read.rows)
                QCOMPARE(t.extra, QStringLiteral("default"));
            QCOMPARE(read.rows[1].size, 1LL << 40);

            const TableRows<Toy> incomplete = readTable(f, required, 1, problems);
            QCOMPARE(incomplete.failure, TableFailure::Incomplete);
            QCOMPARE(problems.first, QStringLiteral("extra is missing"));
        });
        // Present with another length: unusable, so a default where optional, damage where required.
        file.read([&](hid_t f) {
            Hdf5Id group(H5Gopen2(f, "toys", H5P_DEFAULT));
            ColumnValues two;
            two.text = QStringList{"p", "q"};
            QVERIFY(ResultsDatasets::write(group, "extra", ColumnType::Text, two));
            TableProblems problems;
            const TableRows<Toy> read = readTable(f, optional, 1, problems);
            QCOMPARE(read.failure, TableFailure::None);
            QCOMPARE(read.rows[0].extra, QStringLiteral("default"));
            QCOMPARE(readTable(f, required, 1, problems).failure, TableFailure::Incomplete);
            QCOMPARE(problems.first, QStringLiteral("extra has 2 entries, not 3"));
        });
    }

    // A column read only where the file has it (IfPresent): missing, the default; present but
    // unusable, the table is incomplete.
    void ifPresentColumnsAreCheckedWhenThere()
    {
        QTemporaryDir dir;
        ToyFile file(dir.filePath("toys.h5"));
        TableSpec<Toy> spec = baseSpec();
        spec.columns.push_back(extraColumn(Presence::IfPresent));
        file.write([&](hid_t f) { QVERIFY(writeTable(f, baseSpec(), someToys(), 1)); });
        file.read([&](hid_t f) {
            TableProblems problems;
            QCOMPARE(readTable(f, spec, 1, problems).failure, TableFailure::None);
            Hdf5Id group(H5Gopen2(f, "toys", H5P_DEFAULT));
            ColumnValues numbers;
            numbers.int32 = {1, 2, 3};
            QVERIFY(ResultsDatasets::write(group, "extra", ColumnType::Int32, numbers));
            QCOMPARE(readTable(f, spec, 1, problems).failure, TableFailure::Incomplete);
            QCOMPARE(problems.first, QStringLiteral("extra holds values of another type"));
        });
    }

    // A column is written only by the schemas that hold it, and read only from their files: an
    // older file's stray dataset of that name is not taken for it.
    void columnsBelongToTheirSchemas()
    {
        QTemporaryDir dir;
        ToyFile file(dir.filePath("toys.h5"));
        TableSpec<Toy> since3 = baseSpec(), until3 = baseSpec();
        since3.columns.push_back(extraColumn(Presence::Required, 3));
        until3.columns.push_back(extraColumn(Presence::Required, 1, 3));
        const QList<Toy> toys = someToys();
        file.write([&](hid_t f) { QVERIFY(writeTable(f, since3, toys, 2)); });
        file.read([&](hid_t f) { QCOMPARE(H5Lexists(f, "toys/extra", H5P_DEFAULT), 0); });
        file.write([&](hid_t f) { QVERIFY(writeTable(f, until3, toys, 3)); });
        file.read([&](hid_t f) { QCOMPARE(H5Lexists(f, "toys/extra", H5P_DEFAULT), 0); });
        file.write([&](hid_t f) { QVERIFY(writeTable(f, since3, toys, 3)); });
        file.read([&](hid_t f) {
            QVERIFY(H5Lexists(f, "toys/extra", H5P_DEFAULT) > 0);
            TableProblems problems;
            const TableRows<Toy> asSchema2 = readTable(f, since3, 2, problems);
            QCOMPARE(asSchema2.failure, TableFailure::None);
            QCOMPARE(asSchema2.rows[0].extra, QStringLiteral("default"));
            const TableRows<Toy> asSchema3 = readTable(f, since3, 3, problems);
            QCOMPARE(asSchema3.rows[0].extra, QStringLiteral("x"));
            QCOMPARE(readTable(f, until3, 2, problems).rows[0].extra, QStringLiteral("x"));
            QCOMPARE(readTable(f, until3, 3, problems).rows[0].extra, QStringLiteral("default"));
        });
    }

    // No group, or no length column: told apart, with the length column named.
    void aTableWithoutGroupOrLengthIsNamed()
    {
        QTemporaryDir dir;
        ToyFile file(dir.filePath("toys.h5"));
        file.write([&](hid_t f) { QVERIFY(writeTable(f, baseSpec(), someToys(), 1)); });
        file.read([&](hid_t f) {
            TableSpec<Toy> elsewhere = baseSpec();
            elsewhere.group = "other";
            TableProblems problems;
            QCOMPARE(readTable(f, elsewhere, 1, problems).failure, TableFailure::NoGroup);
            QCOMPARE(problems.first, QStringLiteral("name is missing"));
            QVERIFY(H5Ldelete(f, "toys/name", H5P_DEFAULT) >= 0);
            TableProblems again;
            QCOMPARE(readTable(f, baseSpec(), 1, again).failure, TableFailure::NoLength);
            QCOMPARE(again.first, QStringLiteral("name is missing"));
        });
        // The root as a table: datasets beside the groups.
        file.write([&](hid_t f) {
            TableSpec<Toy> root = baseSpec();
            root.group = "/";
            QVERIFY(writeTable(f, root, someToys(), 1));
            QCOMPARE(datasetClass(f, "/name"), H5T_STRING);
            TableProblems problems;
            QCOMPARE(readTable(f, root, 1, problems).rows.size(), 3);
        });
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestResultsTable)
} // namespace tst_resultstable

#include "tst_ResultsTable.moc"
