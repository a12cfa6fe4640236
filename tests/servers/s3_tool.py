#!/usr/bin/env python3
"""Put and get test objects on an S3-compatible server with boto3 (an independent client).

usage: s3_tool.py put ENDPOINT BUCKET LOCAL KEY [public]
       s3_tool.py get ENDPOINT BUCKET KEY LOCAL
       s3_tool.py list ENDPOINT BUCKET PREFIX

put: LOCAL a file is uploaded as KEY; a directory, each file in it as KEY/<name> (a sparse
frame); the bucket is created first if missing; `public`: readable by anyone (ACL public-read). get: KEY an object is saved as LOCAL; else
the objects KEY/<name> are saved in the directory LOCAL. list: one "key size" line per object.
Credentials come from the AWS_* environment.
"""
import os
import sys

import boto3


def main():
    cmd, endpoint, bucket = sys.argv[1:4]
    s3 = boto3.client("s3", endpoint_url=endpoint,
                      region_name=os.environ.get("AWS_REGION", "us-east-1"))
    if cmd == "put":
        local, key = sys.argv[4:6]
        extra = {"ACL": "public-read"} if sys.argv[6:7] == ["public"] else None
        try:
            s3.head_bucket(Bucket=bucket)
        except Exception:
            s3.create_bucket(Bucket=bucket)
        if os.path.isdir(local):
            for name in sorted(os.listdir(local)):
                p = os.path.join(local, name)
                if os.path.isfile(p):
                    s3.upload_file(p, bucket, key.rstrip("/") + "/" + name, ExtraArgs=extra)
        else:
            s3.upload_file(local, bucket, key, ExtraArgs=extra)
    elif cmd == "get":
        key, local = sys.argv[4:6]
        try:
            s3.head_object(Bucket=bucket, Key=key)
            s3.download_file(bucket, key, local)
            return
        except Exception:
            pass
        os.makedirs(local, exist_ok=True)
        prefix = key.rstrip("/") + "/"
        for o in s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", []):
            name = o["Key"][len(prefix):]
            if "/" not in name:
                s3.download_file(bucket, o["Key"], os.path.join(local, name))
    elif cmd == "list":
        prefix = sys.argv[4]
        for o in s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", []):
            print(o["Key"], o["Size"])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
