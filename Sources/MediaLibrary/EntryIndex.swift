/// The grouped list's entries in memory, like `PageIndex` for the plain list: one key per entry — a clip recorded
/// in one file, or a loop recording's oldest kept segment — newest first, so page N of the grouped list is an
/// array slice and two small indexed queries instead of a GROUP BY over every row (about 100 ms at 100,000 rows).
/// A row's group never changes after its insert, so inserts and deletes keep it in step.
package struct EntryIndex: Sendable {
    private(set) var heads = PageIndex(keys: [])
    /// Each loop recording's segment keys, newest first: the last is its head.
    private var groups: [String: PageIndex] = [:]

    package init(rows: [(key: PageIndex.Key, group: String?)]) {
        var singles: [PageIndex.Key] = []
        var members: [String: [PageIndex.Key]] = [:]
        for row in rows {
            if let group = row.group { members[group, default: []].append(row.key) } else { singles.append(row.key) }
        }
        groups = members.mapValues { PageIndex(keys: $0) }
        heads = PageIndex(keys: singles + groups.values.compactMap { $0.keys.last })
    }

    package var count: Int { heads.count }

    /// The heads of entries [offset, offset + limit).
    package func keys(offset: Int, limit: Int) -> [PageIndex.Key] {
        guard offset < heads.count else { return [] }
        return Array(heads.keys[offset..<min(heads.count, offset + limit)])
    }

    package mutating func insert(_ key: PageIndex.Key, group: String?) {
        guard let group else {
            heads.insert(key)
            return
        }
        var members = groups[group] ?? PageIndex(keys: [])
        let before = members.keys.last
        members.insert(key)
        groups[group] = members
        replaceHead(before, with: members.keys.last)
    }

    package mutating func remove(_ key: PageIndex.Key, group: String?) {
        guard let group else {
            heads.remove(key)
            return
        }
        guard var members = groups[group] else { return }
        let before = members.keys.last
        members.remove(key)
        groups[group] = members.count == 0 ? nil : members
        replaceHead(before, with: members.keys.last)
    }

    private mutating func replaceHead(_ old: PageIndex.Key?, with new: PageIndex.Key?) {
        guard old != new else { return }
        if let old { heads.remove(old) }
        if let new { heads.insert(new) }
    }
}
