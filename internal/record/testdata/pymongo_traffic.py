"""A second real driver's traffic for the record tests: finds, an
aggregation read with getMores, inserts, updates, a transaction and a
killed cursor, through the proxy at argv[1] (host:port)."""
import sys

import pymongo

client = pymongo.MongoClient("mongodb://%s/?directConnection=true&appName=pymongo-record-test" % sys.argv[1],
                             serverSelectionTimeoutMS=10000)
coll = client["mongobench_record_py"]["orders"]
coll.drop()
coll.insert_many([{"_id": i, "status": "AB"[i % 2], "qty": i} for i in range(50)])
coll.update_many({"status": "A"}, {"$inc": {"qty": 1}})
assert coll.find_one({"_id": 7})["qty"] == 7
n = sum(1 for _ in coll.aggregate([{"$match": {"qty": {"$gte": 0}}}], batchSize=7))
assert n == 50, n
cur = coll.find({}, batch_size=3)
next(cur)
cur.close()  # an open cursor: killCursors
with client.start_session() as s:
    with s.start_transaction():
        coll.insert_one({"_id": 1000}, session=s)
        coll.update_one({"_id": 1}, {"$set": {"paid": True}}, session=s)
coll.drop()
client.close()
print("ok")
